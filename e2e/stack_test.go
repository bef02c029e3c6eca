package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"github.com/stretchr/testify/require"

	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// taskQueue is the workers' task queue.
const taskQueue = "ppwr"

// stack is the production topology on one host: every process is the
// built binary with its own ports, and all of them share the database,
// Temporal and the bucket.
type stack struct {
	bin      string
	env      []string // what every process gets
	db       *gorm.DB
	temporal client.Client
	apis     []*process
	workers  []*process
}

// process is one running ppwr command.
type process struct {
	name   string
	cmd    *exec.Cmd
	log    string
	url    string // serve: the API's base URL; worker: its health listener
	exited chan struct{}
}

// startStack builds the binary and starts apis `ppwr serve` and workers
// `ppwr worker` processes, and waits until every API is ready and every
// worker polls the task queue. The database is migrated once, before any
// process starts, as a deployment's one-shot `ppwr migrate` does: neither
// serve nor worker migrates.
func startStack(t *testing.T, apis, workers int) *stack {
	t.Helper()
	build := buildBinary(t)
	st := &stack{db: testenv.DB(t), temporal: testenv.Temporal(t)}
	testenv.Storage(t)
	cfg := testenv.Config(t)
	// Only the variables named here, so that the developer's own
	// environment (an OTLP endpoint, another database) cannot leak in.
	st.env = []string{
		"DATABASE_URL=" + cfg.DatabaseURL,
		"TEMPORAL_ADDRESS=" + cfg.TemporalAddress, "TEMPORAL_NAMESPACE=default", "TEMPORAL_TASK_QUEUE=" + taskQueue,
		"S3_ENDPOINT=" + cfg.S3Endpoint, "S3_BUCKET=" + cfg.S3Bucket, "S3_REGION=" + cfg.S3Region,
		"AWS_ACCESS_KEY_ID=" + cfg.AWSAccessKeyID, "AWS_SECRET_ACCESS_KEY=" + cfg.AWSSecretAccessKey,
		// The receiver is a loopback http server, as in development.
		"WEBHOOK_ALLOW_HTTP_LOOPBACK=true",
		// The test polls jobs as fast as it likes; the limit is tested
		// elsewhere.
		"RATE_LIMIT_PER_MINUTE=1000000",
	}
	st.bin = build()
	logs := t.TempDir()
	for i := range apis {
		addr := "127.0.0.1:" + testenv.FreePort()
		p := st.start(t, logs, fmt.Sprintf("serve-%d", i+1), []string{"HTTP_ADDR=" + addr,
			"PUBLIC_BASE_URL=http://" + addr, "METRICS_ADDR=127.0.0.1:" + testenv.FreePort()}, "serve")
		p.url = "http://" + addr
		st.apis = append(st.apis, p)
	}
	for i := range workers {
		addr := "127.0.0.1:" + testenv.FreePort()
		p := st.start(t, logs, fmt.Sprintf("worker-%d", i+1), []string{"WORKER_HEALTH_ADDR=" + addr,
			"METRICS_ADDR=127.0.0.1:" + testenv.FreePort()}, "worker")
		p.url = "http://" + addr
		st.workers = append(st.workers, p)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range slices.Concat(st.apis, st.workers) {
				t.Logf("%s (%s), last lines:\n%s", p.name, p.log, tail(p.log, 30))
			}
		}
	})
	for _, p := range st.apis {
		await(t, 60*time.Second, p.name+" ready", func() (bool, any) { return p.answers("/readyz") })
	}
	// A worker's /readyz also asks for clamd and SMTP, which this test
	// does not use: a worker is up when it answers and polls.
	for _, p := range st.workers {
		await(t, 60*time.Second, p.name+" polling", func() (bool, any) {
			if ok, state := p.answers("/healthz"); !ok {
				return false, state
			}
			pollers := st.pollers(t)
			return slices.ContainsFunc(pollers, p.is), pollers
		})
	}
	return st
}

// buildBinary starts `go build` of the binary and returns a wait for its
// path, so that the build and the backing services start side by side.
func buildBinary(t *testing.T) func() string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ppwr")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/ppwr")
	cmd.Dir = testenv.RepoRoot()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	return func() string {
		require.NoError(t, cmd.Wait(), "go build: %s", out.String())
		return bin
	}
}

// start runs `ppwr <args>` with the stack's environment and env, its
// output in a log file; the test's end stops it as a deployment would.
func (st *stack) start(t *testing.T, logs, name string, env []string, args ...string) *process {
	t.Helper()
	p := &process{name: name, log: filepath.Join(logs, name+".log"), exited: make(chan struct{})}
	out, err := os.Create(p.log)
	require.NoError(t, err)
	defer out.Close()
	p.cmd = exec.Command(st.bin, args...)
	p.cmd.Env = slices.Concat(st.env, env)
	p.cmd.Stdout, p.cmd.Stderr = out, out
	require.NoError(t, p.cmd.Start())
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(p.stop)
	return p
}

// admin runs `ppwr admin <args> --json` and decodes its one object.
func (st *stack) admin(t *testing.T, args ...string) map[string]any {
	t.Helper()
	cmd := exec.Command(st.bin, append(append([]string{"admin"}, args...), "--json")...)
	cmd.Env = st.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "ppwr admin %v: %s %s", args, stdout.String(), stderr.String())
	var obj map[string]any
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &obj), stdout.String())
	return obj
}

// pollers are the identities polling the task queue for activities.
func (st *stack) pollers(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := st.temporal.DescribeTaskQueue(ctx, taskQueue, enumspb.TASK_QUEUE_TYPE_ACTIVITY)
	require.NoError(t, err)
	var ids []string
	for _, p := range res.GetPollers() {
		ids = append(ids, p.GetIdentity())
	}
	return ids
}

// worker is the worker process whose Temporal identity is identity.
func (st *stack) worker(t *testing.T, identity string) *process {
	t.Helper()
	i := slices.IndexFunc(st.workers, func(p *process) bool { return p.is(identity) })
	require.GreaterOrEqual(t, i, 0, "no worker is %q", identity)
	return st.workers[i]
}

// is reports whether a Temporal identity is p's: the SDK's default
// identity starts with the process id.
func (p *process) is(identity string) bool {
	return strings.HasPrefix(identity, strconv.Itoa(p.cmd.Process.Pid)+"@")
}

// probe is the client of health checks: a process that does not answer
// is not up yet.
var probe = &http.Client{Timeout: 5 * time.Second}

// answers reports whether GET path answers 200, with what it answered.
func (p *process) answers(path string) (bool, any) {
	select {
	case <-p.exited:
		return false, fmt.Sprintf("%s exited: %v", p.name, p.cmd.ProcessState)
	default:
	}
	res, err := probe.Get(p.url + path)
	if err != nil {
		return false, err
	}
	defer res.Body.Close()
	return res.StatusCode == http.StatusOK, res.Status
}

// alive reports whether the process is still running.
func (p *process) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// kill ends the process with SIGKILL, as a crash or an OOM kill would:
// nothing of it runs after this returns.
func (p *process) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	<-p.exited
}

// stop ends the process as a deployment would.
func (p *process) stop() { testenv.Terminate(p.cmd.Process, p.exited, 15*time.Second) }

// tail is the last n lines of a file.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// await calls check every 100 ms until it answers true, and fails the test
// with what and check's last state if that takes longer than timeout.
func await(t *testing.T, timeout time.Duration, what string, check func() (bool, any)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, state := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; last: %v", timeout, what, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
