package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
	"ppwr/internal/config"
	"ppwr/internal/testenv"
)

// importsScenario is the name -scenario matches to run the import
// benchmark: an import's way from upload through the worker, measured
// against the cost of the cheapest Temporal workflow on the same server.
const importsScenario = "imports"

const (
	floorWarmup, floorRuns = 5, 40
	smallWarmup, smallRuns = 3, 30
	smallRows, bigRows     = 10, 100_000
	// A small import is polled often, so the poll adds little to its
	// time; a big one less often, so the polls do not take the cores the
	// worker is measured on.
	smallPoll, bigPoll = 5 * time.Millisecond, 20 * time.Millisecond
	smallTimeout       = 30 * time.Second
)

// The targets.
const (
	smallTarget   = 300 * time.Millisecond
	previewTarget = 2 * time.Second
	applyTarget   = 3 * time.Second
	// XLSX may take up to this many times the CSV's time.
	xlsxFactor   = 2
	maxWorkerRSS = 150 << 20
)

// runImports measures imports through the API and a worker process of
// their own. bigTimeout bounds each stage of a big file.
func runImports(bigTimeout time.Duration) error {
	st, err := startWorkerStack()
	if err != nil {
		return err
	}
	defer st.close()
	tc, w := st.temporal, st.worker
	c := &importClient{apiClient: st.client(2 * time.Minute), worker: w, db: st.db, temporal: tc, bigTimeout: bigTimeout}

	fmt.Printf("imports: %s\n\n", st.describe())
	fmt.Printf("%-36s %-22s %-46s %s\n", "scenario", "target", "measured", "verdict")

	// Back to back, every task of a workflow waits some 40 ms on the dev
	// server, three times what it waits when runs arrive apart, as
	// uploads do; both are shown, and the imports compare with the latter.
	tight, err := measureFloor(tc, func() {})
	if err != nil {
		return fmt.Errorf("temporal floor: %w", err)
	}
	fl, err := measureFloor(tc, arrival)
	if err != nil {
		return fmt.Errorf("temporal floor: %w", err)
	}
	line("Temporal floor back to back: result", "-", p50p90(tight.result, floorRuns), "")
	line("Temporal floor: result", "-", p50p90(fl.result, floorRuns), "")
	line("Temporal floor: activity ran", "-", p50p90(fl.activity, floorRuns), "")

	small, err := c.smallImports()
	if err != nil {
		line("10-row CSV upload -> ready", "p50 <= "+ms(smallTarget), "failed: "+err.Error(), verdict(false))
	} else {
		p50 := small.percentile(0.5)
		line("10-row CSV upload -> ready", "p50 <= "+ms(smallTarget), p50p90(small, smallRuns), verdict(p50 <= smallTarget))
		line("10-row CSV / floor result (p50)", "about 2x", fmt.Sprintf("%.1fx (%.1fx the activity's)", float64(p50)/float64(fl.result.percentile(0.5)),
			float64(p50)/float64(fl.activity.percentile(0.5))), "")
	}

	rss, err := w.status("VmRSS")
	if err != nil {
		return err
	}
	line("worker RSS before the big files", "-", mb(rss), "")
	csvFile, err := csvBytes(catalogRows(bigRows))
	if err != nil {
		return err
	}
	csvTimes := c.bigImport("CSV", "katalog.csv", csvFile, "", previewTarget, applyTarget)
	// The CSV's apply left 100,000 new items, data versions and updated
	// rows, and autovacuum would work through them while the XLSX is
	// measured, taking a core from it on a two-core machine: each file is
	// measured on a settled database, so the formats compare fairly.
	if err := c.db.Exec("VACUUM ANALYZE").Error; err != nil {
		return err
	}
	// New codes: the CSV's items exist now, so its rows would be unchanged.
	xlsxFile, err := xlsxBytes(catalogRows(bigRows))
	if err != nil {
		return err
	}
	c.bigImport("XLSX", "katalog.xlsx", xlsxFile, fmt.Sprintf("%dx CSV", xlsxFactor), xlsxFactor*csvTimes.preview, xlsxFactor*csvTimes.apply)
	fmt.Println()
	return nil
}

func p50p90(r result, runs int) string {
	return fmt.Sprintf("p50 %s, p90 %s (%d runs)", ms(r.percentile(0.5)), ms(r.percentile(0.9)), runs)
}

// arrival waits as long as an upload might come after the one before.
func arrival() { time.Sleep(rand.N(time.Second)) }

func line(scenario, target, measured, verdict string) {
	fmt.Printf("%-36s %-22s %-46s %s\n", scenario, target, measured, verdict)
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "NOT met"
}

func ms(d time.Duration) string {
	if d >= 10*time.Millisecond {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Microsecond).String()
}

func mb(bytes int64) string { return fmt.Sprintf("%.0f MB", float64(bytes)/(1<<20)) }

// floor is the cheapest workflow's times: until its activity ran, and
// until its result was back.
type floor struct{ activity, result result }

// measureFloor times starting a workflow with one no-op activity on a
// worker in this process and getting its result: the least any workflow
// costs on this server. An import is ready once its activity has run,
// before its workflow completes, so the time until the activity ran is
// kept too. wait comes before each run.
func measureFloor(c client.Client, wait func()) (floor, error) {
	queue := "ppwr-bench-floor-" + uuid.NewString()[:8]
	acts := &floorActivities{ran: make(chan time.Time, 1)}
	w := sdkworker.New(c, queue, sdkworker.Options{})
	w.RegisterWorkflow(floorWorkflow)
	w.RegisterActivity(acts)
	if err := w.Start(); err != nil {
		return floor{}, err
	}
	defer w.Stop()
	var f floor
	ctx := context.Background()
	for i := range floorWarmup + floorRuns {
		wait()
		t0 := time.Now()
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "floor/" + uuid.NewString(), TaskQueue: queue}, floorWorkflow)
		if err == nil {
			err = run.Get(ctx, nil)
		}
		if err != nil {
			return f, err
		}
		done, ran := time.Since(t0), (<-acts.ran).Sub(t0)
		if i >= floorWarmup {
			f.activity.latencies = append(f.activity.latencies, ran)
			f.result.latencies = append(f.result.latencies, done)
		}
	}
	slices.Sort(f.activity.latencies)
	slices.Sort(f.result.latencies)
	return f, nil
}

func floorWorkflow(ctx workflow.Context) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var a *floorActivities
	return workflow.ExecuteActivity(ctx, a.Noop).Get(ctx, nil)
}

// floorActivities tells when the no-op ran.
type floorActivities struct{ ran chan time.Time }

// Noop does nothing but tell when; a retried attempt does not tell twice.
func (a *floorActivities) Noop(context.Context) error {
	select {
	case a.ran <- time.Now():
	default:
	}
	return nil
}

// workerProcess is `ppwr worker` running as its own process, so that its
// memory is its own.
type workerProcess struct {
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	err    error
}

// startWorker runs `ppwr worker` against the benchmark's services.
func startWorker(bin string, cfg config.Config) (*workerProcess, error) {
	logFile, err := os.CreateTemp("", "ppwr-bench-worker-*.log")
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, "worker")
	// Later entries win, so these override the stack's own variables.
	cmd.Env = append(os.Environ(),
		"DATABASE_URL="+cfg.DatabaseURL, "DATABASE_LISTEN_URL="+cfg.DatabaseListenURL,
		"TEMPORAL_ADDRESS="+cfg.TemporalAddress, "TEMPORAL_NAMESPACE="+cfg.TemporalNamespace, "TEMPORAL_TASK_QUEUE="+cfg.TemporalTaskQueue,
		"S3_ENDPOINT="+cfg.S3Endpoint, "S3_BUCKET="+cfg.S3Bucket, "S3_REGION="+cfg.S3Region,
		"AWS_ACCESS_KEY_ID="+cfg.AWSAccessKeyID, "AWS_SECRET_ACCESS_KEY="+cfg.AWSSecretAccessKey,
		"CLAMD_ADDRESS="+cfg.ClamdAddress,
		// The benchmark reads neither, and their fixed ports would keep
		// a second benchmark's worker (or a running `make run`) from
		// starting.
		"METRICS_ADDR=off", "WORKER_HEALTH_ADDR=",
	)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s worker: %w", bin, err)
	}
	w := &workerProcess{cmd: cmd, log: logFile.Name(), exited: make(chan struct{})}
	go func() {
		w.err = cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// stop ends the worker as a deployment would, with SIGTERM, and kills it
// if it does not drain in time.
func (w *workerProcess) stop() { testenv.Terminate(w.cmd.Process, w.exited, 15*time.Second) }

// alive fails once the worker has exited.
func (w *workerProcess) alive() error {
	select {
	case <-w.exited:
		return fmt.Errorf("the worker exited (%v); see %s", w.err, w.log)
	default:
		return nil
	}
}

// status reads a memory figure of /proc/<pid>/status in bytes.
func (w *workerProcess) status(field string) (int64, error) {
	path := fmt.Sprintf("/proc/%d/status", w.cmd.Process.Pid)
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for l := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in %s", field, path)
}

// resetPeak starts the worker's peak RSS (VmHWM) over from its current
// RSS, so that each file's peak is its own.
func (w *workerProcess) resetPeak() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", w.cmd.Process.Pid), []byte("5"), 0)
}

// importClient drives imports through the API as an ERP would.
type importClient struct {
	apiClient
	worker   *workerProcess
	db       *gorm.DB
	temporal client.Client
	// bigTimeout bounds each stage of a big file.
	bigTimeout time.Duration
}

// importJSON is the part of the import resource the benchmark reads.
type importJSON struct {
	ID     uuid.UUID      `json:"id"`
	Status string         `json:"status"`
	Error  *string        `json:"error"`
	Counts map[string]int `json:"counts"`
}

// smallImports times fresh 10-row files from upload to ready, each after
// a random pause, as uploads come.
func (c *importClient) smallImports() (result, error) {
	var r result
	for i := range smallWarmup + smallRuns {
		file, err := csvBytes(catalogRows(smallRows))
		if err != nil {
			return r, err
		}
		arrival()
		_, d, err := c.preview("katalog.csv", file, smallRows, smallPoll, smallTimeout)
		if err != nil {
			return r, err
		}
		if i >= smallWarmup {
			r.latencies = append(r.latencies, d)
		}
	}
	slices.Sort(r.latencies)
	return r, nil
}

// bigTimes are a big file's times; zero when that stage failed.
type bigTimes struct{ preview, apply time.Duration }

// bigImport uploads and applies a big file, printing each stage's time
// and rate and the worker's peak memory over both against the targets;
// relative names what the limits derive from, if anything (a zero limit
// is one whose source failed).
func (c *importClient) bigImport(kind, name string, file []byte, relative string, previewMax, applyMax time.Duration) bigTimes {
	label := fmt.Sprintf("%dk-row %s", bigRows/1000, kind)
	target := func(limit time.Duration) string {
		switch {
		case relative == "":
			return "<= " + ms(limit)
		case limit == 0:
			return "<= " + relative
		}
		return "<= " + relative + " = " + ms(limit)
	}
	stage := func(what string, limit, d time.Duration, used cpuTimes, err error) {
		if err != nil {
			line(label+" "+what, target(limit), "failed: "+err.Error(), verdict(false))
			return
		}
		line(label+" "+what, target(limit), fmt.Sprintf("%s (%.0f rows/s, %.1f MB file)", ms(d), bigRows/d.Seconds(), float64(len(file))/(1<<20)), verdict(d <= limit))
		line(label+" "+what+" CPU", "-", used.String(), "")
	}
	peakNote := ""
	if err := c.worker.resetPeak(); err != nil {
		peakNote = " (since worker start: " + err.Error() + ")"
	}
	var out bigTimes
	before := c.cpu()
	id, d, err := c.preview(name, file, bigRows, bigPoll, c.bigTimeout)
	afterPreview := c.cpu()
	stage("upload -> ready", previewMax, d, afterPreview.minus(before), err)
	if err == nil {
		out.preview = d
		d, err = c.apply(id, bigPoll, c.bigTimeout)
		stage("apply -> completed", applyMax, d, c.cpu().minus(afterPreview), err)
		if err == nil {
			out.apply = d
		}
	} else {
		line(label+" apply -> completed", target(applyMax), "not run", verdict(false))
	}
	// The items' events are the worker's work too; relaying them must end
	// before the next file, or it would slow that file down.
	t0 := time.Now()
	if n, err := c.drainEvents(c.bigTimeout); err != nil {
		line(label+" events relayed", "-", "failed: "+err.Error(), "")
	} else {
		line(label+" events relayed", "-", fmt.Sprintf("%d left at the end, relayed in %s", n, ms(time.Since(t0))), "")
	}
	if peak, err := c.worker.status("VmHWM"); err != nil {
		line(label+" worker peak RSS", "< "+mb(maxWorkerRSS), "failed: "+err.Error(), verdict(false))
	} else {
		line(label+" worker peak RSS", "< "+mb(maxWorkerRSS), mb(peak)+peakNote, verdict(peak < maxWorkerRSS))
	}
	return out
}

// cpuTimes is the CPU time used by the worker process and by the
// PostgreSQL backends serving the benchmark's database (the API's and the
// worker's), zero where /proc does not show it (a server on another
// host). It moves far less with what else the machine runs than a stage's
// time does. A backend that exits in between is not counted.
type cpuTimes struct{ worker, postgres time.Duration }

func (c cpuTimes) minus(o cpuTimes) cpuTimes {
	return cpuTimes{worker: c.worker - o.worker, postgres: c.postgres - o.postgres}
}

func (c cpuTimes) String() string {
	return fmt.Sprintf("worker %s, PostgreSQL %s", ms(c.worker), ms(c.postgres))
}

// cpu reads the CPU times now.
func (c *importClient) cpu() cpuTimes { return cpuOf(c.worker, c.db) }

// cpuOf reads the CPU times of worker and of db's backends now.
func cpuOf(worker *workerProcess, db *gorm.DB) cpuTimes {
	out := cpuTimes{worker: processTicks(worker.cmd.Process.Pid)}
	var pids []int
	if db.Raw("SELECT pid FROM pg_stat_activity WHERE datname = current_database()").Scan(&pids).Error == nil {
		for _, pid := range pids {
			out.postgres += processTicks(pid)
		}
	}
	return out
}

// processTicks is the user and system CPU time of process pid, all its
// threads, from /proc/<pid>/stat (in clock ticks, 100 a second on Linux);
// zero if it cannot be read.
func processTicks(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command, which is in parentheses, from the
	// state (the third field): utime and stime are the 14th and 15th.
	text := string(raw)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	user, _ := strconv.ParseInt(fields[11], 10, 64)
	system, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(user+system) * 10 * time.Millisecond
}

// drainEvents waits until the worker's relay has relayed every event and
// returns how many there were to relay when it began.
func (c *importClient) drainEvents(timeout time.Duration) (int64, error) {
	deadline := time.Now().Add(timeout)
	var first int64 = -1
	for {
		var n int64
		if err := c.db.Model(&domain.Event{}).Where("relayed_at IS NULL").Count(&n).Error; err != nil {
			return 0, err
		}
		if first < 0 {
			first = n
		}
		if n == 0 {
			return first, nil
		}
		if err := c.worker.alive(); err != nil {
			return 0, err
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%d events still unrelayed after %s", n, timeout)
		}
		time.Sleep(bigPoll)
	}
}

// preview uploads a file and times it from the upload to ready, checking
// that every row is planned as a create. It returns the import's id.
func (c *importClient) preview(name string, file []byte, rows int, poll, timeout time.Duration) (uuid.UUID, time.Duration, error) {
	var body bytes.Buffer
	form := multipart.NewWriter(&body)
	if err := form.WriteField("type", "catalog"); err != nil {
		return uuid.Nil, 0, err
	}
	part, err := form.CreateFormFile("file", name)
	if err != nil {
		return uuid.Nil, 0, err
	}
	if _, err := part.Write(file); err != nil {
		return uuid.Nil, 0, err
	}
	if err := form.Close(); err != nil {
		return uuid.Nil, 0, err
	}
	t0 := time.Now()
	var imp importJSON
	if err := c.do(http.MethodPost, "/imports", &body, form.FormDataContentType(), http.StatusAccepted, &imp); err != nil {
		return uuid.Nil, 0, err
	}
	if imp, err = c.await(imp.ID, imports.PreviewWorkflow.ID(imports.ImportInput{ImportID: imp.ID}), imports.ImportReadyStatus, poll, timeout); err != nil {
		return uuid.Nil, 0, err
	}
	d := time.Since(t0)
	if imp.Counts[imports.OutcomeCreate] != rows {
		return uuid.Nil, 0, fmt.Errorf("%d of %d rows planned as creates (counts %v)", imp.Counts[imports.OutcomeCreate], rows, imp.Counts)
	}
	return imp.ID, d, nil
}

// apply applies a ready import and times it until it is completed.
func (c *importClient) apply(id uuid.UUID, poll, timeout time.Duration) (time.Duration, error) {
	t0 := time.Now()
	var imp importJSON
	if err := c.do(http.MethodPost, "/imports/"+id.String()+"/apply", nil, "", http.StatusAccepted, &imp); err != nil {
		return 0, err
	}
	if _, err := c.await(id, imports.ApplyWorkflow.ID(imports.ImportInput{ImportID: id}), imports.ImportCompletedStatus, poll, timeout); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// await polls the import until it reaches want, and fails on any other
// final status; workflowID is the run that takes it there.
func (c *importClient) await(id uuid.UUID, workflowID, want string, poll, timeout time.Duration) (importJSON, error) {
	deadline := time.Now().Add(timeout)
	for {
		var imp importJSON
		if err := c.do(http.MethodGet, "/imports/"+id.String(), nil, "", http.StatusOK, &imp); err != nil {
			return imp, err
		}
		switch imp.Status {
		case want:
			return imp, nil
		case imports.ImportFailedStatus, imports.ImportCompletedWithErrors:
			reason := ""
			if imp.Error != nil {
				reason = ": " + *imp.Error
			}
			return imp, fmt.Errorf("import %s%s", imp.Status, reason)
		}
		if err := c.worker.alive(); err != nil {
			return imp, err
		}
		if time.Now().After(deadline) {
			// A run left going would slow down the next file.
			_ = c.temporal.TerminateWorkflow(context.Background(), workflowID, "", "ppwr-bench: out of time")
			return imp, fmt.Errorf("import still %s after %s%s", imp.Status, timeout, c.progress(id, imp.Status, timeout))
		}
		time.Sleep(poll)
	}
}

// progress says how far an import that ran out of time got, from its
// rows, so that a slow stage still has a rate.
func (c *importClient) progress(id uuid.UUID, status string, elapsed time.Duration) string {
	q, done := c.db.Model(&imports.ImportRow{}).Where("import_id = ?", id), "planned"
	if status == imports.ImportApplying {
		q, done = q.Where("applied IS NOT NULL"), "applied"
	}
	var n int64
	if err := q.Count(&n).Error; err != nil {
		return ""
	}
	return fmt.Sprintf(": %d rows %s, %.0f rows/s", n, done, float64(n)/elapsed.Seconds())
}

// catalogColumns are the columns of the generated files: every item
// field but the folder and family, which would need structure records.
var catalogColumns = []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit",
	"stockTracked", "foodContactStatus", "reuseType"}

// product is a kind of packaging a Polish catalogue lists.
type product struct {
	name, material, unit string
	massG                float64
}

var products = []product{
	{"Butelka PET 0,5 l", "PLASTIC_PET", "piece", 24.5},
	{"Słoik szklany 900 ml", "GLASS_CLEAR", "piece", 310},
	{"Butelka szklana zielona 0,75 l", "GLASS_GREEN", "piece", 450},
	{"Karton klapowy 400×300×200", "PAPER_CORRUGATED", "piece", 420},
	{"Pudełko składane z tektury", "PAPER_CARDBOARD", "piece", 85.2},
	{"Folia stretch 23 µm", "PLASTIC_LDPE", "kg", 1000},
	{"Taśma pakowa PP brązowa", "PLASTIC_PP", "m", 2.1},
	{"Paleta EUR 1200×800", "WOOD_PALLET", "piece", 25000},
	{"Puszka aluminiowa 330 ml", "ALUMINIUM_RIGID", "piece", 13.2},
	{"Wieczko HDPE 38 mm", "PLASTIC_HDPE", "piece", 2.8},
	{"Kapsel stalowy koronowy", "STEEL_TINPLATE", "piece", 2.2},
	{"Torba papierowa z uchwytem", "PAPER_PAPER", "piece", 55},
	{"Wypełniacz styropianowy", "PLASTIC_EPS", "kg", 1000},
	{"Karton do płynów 1 l", "MULTIMATERIAL_LIQUID_CARTON", "piece", 28.4},
}

// catalogRows makes n valid rows of new items, with codes no earlier
// call made.
func catalogRows(n int) [][]string {
	prefix := "PL-" + strings.ToUpper(uuid.NewString()[:8])
	rows := make([][]string, n)
	for i := range rows {
		p := products[i%len(products)]
		rows[i] = []string{
			fmt.Sprintf("%s-%06d", prefix, i), fmt.Sprintf("%s, partia %d", p.name, i/len(products)+1),
			catalog.SourcingTypes[i%len(catalog.SourcingTypes)], strconv.FormatFloat(p.massG+float64(i%50)/10, 'f', 1, 64),
			p.material, p.unit, strconv.FormatBool(i%3 != 0),
			catalog.FoodContactStatuses[i%len(catalog.FoodContactStatuses)], catalog.ReuseTypes[i%len(catalog.ReuseTypes)],
		}
	}
	return rows
}

// csvBytes writes the rows as Polish Excel saves "CSV (separated by
// semicolons)", but in UTF-8 with a byte order mark.
func csvBytes(rows [][]string) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString("\uFEFF")
	w := csv.NewWriter(&out)
	w.Comma, w.UseCRLF = ';', true
	if err := w.Write(catalogColumns); err != nil {
		return nil, err
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// xlsxBytes writes the rows to the first sheet of a workbook, the mass as
// a number and stockTracked as a boolean, as a user typing them in Excel
// would have them.
func xlsxBytes(rows [][]string) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	sheet := f.GetSheetName(0)
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return nil, err
	}
	header := make([]any, len(catalogColumns))
	for i, c := range catalogColumns {
		header[i] = c
	}
	if err := sw.SetRow("A1", header); err != nil {
		return nil, err
	}
	mass, tracked := slices.Index(catalogColumns, "massG"), slices.Index(catalogColumns, "stockTracked")
	for i, r := range rows {
		cells := make([]any, len(r))
		for j, v := range r {
			cells[j] = v
		}
		if cells[mass], err = strconv.ParseFloat(r[mass], 64); err != nil {
			return nil, err
		}
		if cells[tracked], err = strconv.ParseBool(r[tracked]); err != nil {
			return nil, err
		}
		cell, err := excelize.CoordinatesToCellName(1, i+2)
		if err != nil {
			return nil, err
		}
		if err := sw.SetRow(cell, cells); err != nil {
			return nil, err
		}
	}
	if err := sw.Flush(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if _, err := f.WriteTo(&out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
