package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"ppwr/domain/documents"
	"ppwr/internal/pdfgen"
)

// documentsScenario is the name -scenario matches to run the document
// benchmark: a 100 MB upload beside a plain S3 PutObject of the same
// bytes, and the processing and analysis of a 200-page text PDF.
const documentsScenario = "documents"

// The targets.
const (
	uploadBytes        = 100 << 20
	uploadRatioTarget  = 0.5
	uploadGrowthTarget = 64 << 20
	bigPDFPages        = 200
	documentTimeout    = 5 * time.Minute
)

func runDocuments() error {
	st, err := startWorkerStack()
	if err != nil {
		return err
	}
	defer st.close()
	fmt.Printf("documents: %s\n\n", st.describe())
	fmt.Printf("%-36s %-22s %-46s %s\n", "scenario", "target", "measured", "verdict")
	c := &documentClient{apiClient: st.client(documentTimeout), st: st}

	// The same pseudo-random bytes (incompressible, as a scanned PDF is)
	// go to S3 directly and through the API.
	// The first put warms the store up; the second is the baseline.
	seed := rand.Uint64()
	var plain time.Duration
	for range 2 {
		t0 := time.Now()
		if err := st.store.Put(context.Background(), "bench/plain-"+uuid.NewString(), newNoise(seed, uploadBytes), "application/octet-stream"); err != nil {
			return fmt.Errorf("plain put: %w", err)
		}
		plain = time.Since(t0)
	}
	line("plain S3 PutObject 100 MB", "-", rate(plain), "")

	before, err := selfStatus("VmRSS")
	if err != nil {
		return err
	}
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("resetting the peak RSS: %w", err)
	}
	t0 := time.Now()
	_, err = c.upload(map[string]string{"document_type": "photo", "title": "Bench noise"}, "noise.bin", newNoise(seed, uploadBytes))
	upload := time.Since(t0)
	if err != nil {
		line("API upload 100 MB", ">= 50% of plain", "failed: "+err.Error(), verdict(false))
	} else {
		ratio := plain.Seconds() / upload.Seconds()
		line("API upload 100 MB", ">= 50% of plain", fmt.Sprintf("%s = %.0f%% of plain", rate(upload), 100*ratio), verdict(ratio >= uploadRatioTarget))
		peak, err := selfStatus("VmHWM")
		if err != nil {
			return err
		}
		growth := peak - before
		line("API resident memory growth", "< "+mb(uploadGrowthTarget), fmt.Sprintf("%s (%s before)", mb(growth), mb(before)), verdict(growth < uploadGrowthTarget))
	}

	pdf, err := bigPDF()
	if err != nil {
		return err
	}
	item, err := c.item()
	if err != nil {
		return err
	}
	// A worker starts its PDF engine on the first PDF it meets (about
	// 1.5 s); the measured file is the second.
	t0 = time.Now()
	warm, err := c.upload(map[string]string{"document_type": "other", "title": "Warm-up"}, "warm.pdf", bytes.NewReader(pdf))
	if err == nil {
		err = c.awaitStatus(warm, documents.ProcessingReviewRequired)
	}
	if err != nil {
		line("first PDF (engine start)", "-", "failed: "+err.Error(), verdict(false))
		return nil
	}
	line("first PDF (engine start)", "-", ms(time.Since(t0)), "")
	t0 = time.Now()
	version, err := c.upload(map[string]string{"document_type": "specification_sheet", "title": "Bench 200 pages", "catalog_item": item}, "spec.pdf", bytes.NewReader(pdf))
	if err == nil {
		err = c.awaitStatus(version, documents.ProcessingReviewRequired)
	}
	processing := time.Since(t0)
	if err != nil {
		line("200-page PDF upload -> review", "-", "failed: "+err.Error(), verdict(false))
		return nil
	}
	line("200-page PDF upload -> review", "-", fmt.Sprintf("%s (%.0f pages/s, %.1f MB)", ms(processing), bigPDFPages/processing.Seconds(), float64(len(pdf))/(1<<20)), "")
	t0 = time.Now()
	n, err := c.analyze(version)
	if err != nil {
		line("200-page PDF analysis -> proposals", "-", "failed: "+err.Error(), verdict(false))
		return nil
	}
	line("200-page PDF analysis -> proposals", "-", fmt.Sprintf("%s (%d proposals)", ms(time.Since(t0)), n), "")
	fmt.Println()
	return nil
}

func rate(d time.Duration) string {
	return fmt.Sprintf("%s (%.0f MB/s)", ms(d), float64(uploadBytes)/(1<<20)/d.Seconds())
}

// noise is n pseudo-random bytes from a seed, generated as read.
type noise struct {
	rng  *rand.ChaCha8
	left int64
}

func newNoise(seed uint64, n int64) io.Reader {
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	return &noise{rng: rand.NewChaCha8(key), left: n}
}

func (r *noise) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	_, _ = r.rng.Read(p)
	r.left -= int64(len(p))
	return len(p), nil
}

// bigPDF renders a 200-page specification with a measurement on every
// tenth page.
func bigPDF() ([]byte, error) {
	doc := pdfgen.Document{Title: "Specyfikacja opakowań", Created: time.Now()}
	for page := 1; len(doc.Sections) < bigPDFPages; page++ {
		s := pdfgen.Section{Heading: "Rozdział " + strconv.Itoa(page)}
		for line := range 34 {
			s.Rows = append(s.Rows, pdfgen.Row{Label: "Pozycja " + strconv.Itoa(line+1), Value: "Tekst opisu opakowania, wiersz " + strconv.Itoa(line+1)})
		}
		if page%10 == 0 {
			s.Rows = append(s.Rows, pdfgen.Row{Label: "Masa opakowania:", Value: strconv.Itoa(page) + ",5 g"})
		}
		doc.Sections = append(doc.Sections, s)
	}
	var out bytes.Buffer
	err := pdfgen.Render(&out, doc)
	return out.Bytes(), err
}

// selfStatus reads a field of this process's status in bytes.
func selfStatus(field string) (int64, error) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", field)
}

// documentClient drives documents through the API as an ERP would.
type documentClient struct {
	apiClient
	st *workerStack
}

// upload streams a multipart form to POST /documents without holding the
// file, and answers the version's id.
func (c *documentClient) upload(fields map[string]string, name string, file io.Reader) (string, error) {
	pr, pw := io.Pipe()
	form := multipart.NewWriter(pw)
	go func() {
		for k, v := range fields {
			if err := form.WriteField(k, v); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		part, err := form.CreateFormFile("file", name)
		if err == nil {
			_, err = io.Copy(part, file)
		}
		if err == nil {
			err = form.Close()
		}
		pw.CloseWithError(err)
	}()
	var v struct{ ID string }
	err := c.do(http.MethodPost, "/documents", pr, form.FormDataContentType(), http.StatusCreated, &v)
	return v.ID, err
}

func (c *documentClient) item() (string, error) {
	body := `{"internalCode":"BENCH-DOC","name":"Pudełko","sourcingType":"purchased","massG":"24.5","mainMaterialCode":"PAPER_CARDBOARD","stockUnit":"piece","reuseType":"single_use","foodContactStatus":"not_food_contact"}`
	var item struct{ ID string }
	err := c.do(http.MethodPost, "/catalog-items", strings.NewReader(body), "application/json", http.StatusCreated, &item)
	return item.ID, err
}

// awaitStatus polls the version until its processing ends.
func (c *documentClient) awaitStatus(id, want string) error {
	deadline := time.Now().Add(documentTimeout)
	for time.Now().Before(deadline) {
		var v struct {
			ProcessingStatus string  `json:"processing_status"`
			ProcessingReason *string `json:"processing_reason"`
		}
		if err := c.do(http.MethodGet, "/document-versions/"+id, nil, "", http.StatusOK, &v); err != nil {
			return err
		}
		switch v.ProcessingStatus {
		case want:
			return nil
		case documents.ProcessingQuarantined, documents.ProcessingFailed:
			return fmt.Errorf("%s: %v", v.ProcessingStatus, *v.ProcessingReason)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("version %s not %s after %s", id, want, documentTimeout)
}

// analyze queues an analysis and waits for its proposals; the run's
// proposals are written in one transaction, so the first seen are all.
func (c *documentClient) analyze(version string) (int, error) {
	var queued struct{ Analysis int }
	if err := c.do(http.MethodPost, "/document-versions/"+version+"/analyze", strings.NewReader("{}"), "application/json", http.StatusAccepted, &queued); err != nil {
		return 0, err
	}
	deadline := time.Now().Add(documentTimeout)
	for time.Now().Before(deadline) {
		var n int64
		if err := c.st.db.Model(&documents.EvidenceProposal{}).Where("document_version_id = ? AND analysis_run = ?", version, queued.Analysis).
			Count(&n).Error; err != nil {
			return 0, err
		}
		if n > 0 {
			return int(n), nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, fmt.Errorf("no proposals after %s", documentTimeout)
}
