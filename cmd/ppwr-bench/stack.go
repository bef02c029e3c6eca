package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"fmt"
	"os"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
	"gorm.io/gorm"

	"ppwr/api/kit"
	"ppwr/internal/config"
	"ppwr/internal/storage"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
)

// workerStack is what the scenarios of asynchronous jobs run on: a
// database of their own (the worker's relay would otherwise first relay
// the events of the scenarios before), a Temporal dev server, versitygw,
// clamd, the API served in this process as the other scenarios are, and
// a ppwr worker process of its own, so that its memory is its own.
type workerStack struct {
	cfg      config.Config
	db       *gorm.DB
	temporal client.Client
	dev      *testsuite.DevServer
	store    *storage.Store
	base     string // the organization's API URL
	org      uuid.UUID
	token    string
	worker   *workerProcess
	closers  []func()
}

// startWorkerStack starts the stack; the worker binary comes from PPWR_BIN.
func startWorkerStack() (*workerStack, error) {
	bin := os.Getenv("PPWR_BIN")
	if bin == "" {
		return nil, errors.New("set PPWR_BIN to a ppwr binary, or run make bench, which builds one")
	}
	st := &workerStack{}
	fail := func(err error) (*workerStack, error) {
		st.close()
		return nil, err
	}
	db, dbURL, drop, err := testenv.CreateDatabase("ppwr_bench_")
	if err != nil {
		return fail(fmt.Errorf("database (set TEST_DATABASE_URL or run make bench): %w", err))
	}
	st.db, st.closers = db, append(st.closers, drop)
	if st.dev, err = testenv.StartTemporal(); err != nil {
		return fail(fmt.Errorf("temporal dev server: %w", err))
	}
	st.closers = append(st.closers, func() { _ = st.dev.Stop() })
	s3, store, stopS3, err := testenv.StartS3()
	if err != nil {
		return fail(fmt.Errorf("s3 (versitygw): %w", err))
	}
	st.store, st.closers = store, append(st.closers, stopS3)
	clamd, stopClamd, err := testenv.StartClamd("")
	if err != nil {
		return fail(fmt.Errorf("clamd: %w", err))
	}
	st.closers = append(st.closers, stopClamd)

	if st.cfg, err = config.FromEnv(); err != nil {
		return fail(err)
	}
	cfg := &st.cfg
	// Polling is not what is measured.
	cfg.RateLimitPerMinute, cfg.RecommendationRateLimitPerMinute = 1_000_000_000, 1_000_000_000
	cfg.DatabaseURL, cfg.DatabaseListenURL = dbURL, dbURL
	cfg.TemporalAddress, cfg.TemporalNamespace = st.dev.FrontendHostPort(), "default"
	cfg.TemporalTaskQueue = "ppwr-bench-" + uuid.NewString()[:8]
	cfg.S3Endpoint, cfg.S3Bucket, cfg.S3Region = s3.Endpoint, s3.Bucket, s3.Region
	cfg.AWSAccessKeyID, cfg.AWSSecretAccessKey = s3.AccessKeyID, s3.SecretAccessKey
	cfg.ClamdAddress = clamd
	cfg.DocumentMaxBytes = 200 << 20
	// The dev server's own client logs every workflow task.
	if st.temporal, err = temporalclient.Dial(*cfg); err != nil {
		return fail(err)
	}
	st.closers = append(st.closers, st.temporal.Close)
	// The API records workflow starts and runs no worker; the worker
	// process relays them to its task queue and runs them.
	base, stopAPI, err := serveAPI(kit.Deps{Config: st.cfg, DB: db, Temporal: st.temporal, Storage: store}, dbURL)
	if err != nil {
		return fail(err)
	}
	st.closers = append(st.closers, stopAPI)
	orgID, tokens, err := seedClients(db, 1)
	if err != nil {
		return fail(err)
	}
	st.base, st.org, st.token = base+"/api/v1/organizations/"+orgID.String(), orgID, tokens[0]
	if st.worker, err = startWorker(bin, st.cfg); err != nil {
		return fail(err)
	}
	st.closers = append(st.closers, st.worker.stop)
	return st, nil
}

// describe names the processes, for the scenario's header.
func (st *workerStack) describe() string {
	return fmt.Sprintf("%s worker (pid %d, log %s) on task queue %s; Temporal dev server %s; versitygw %s; clamd %s",
		st.worker.cmd.Path, st.worker.cmd.Process.Pid, st.worker.log, st.cfg.TemporalTaskQueue, st.dev.FrontendHostPort(),
		st.cfg.S3Endpoint, st.cfg.ClamdAddress)
}

// close stops what was started, last first.
func (st *workerStack) close() {
	for i := len(st.closers) - 1; i >= 0; i-- {
		st.closers[i]()
	}
}

// apiClient calls the API as the benchmark's user.
type apiClient struct {
	http        *http.Client
	base, token string
}

// client is an API client of the stack's organization.
func (st *workerStack) client(timeout time.Duration) apiClient {
	return apiClient{http: &http.Client{Timeout: timeout}, base: st.base, token: st.token}
}

// do sends a request of the benchmark's user and decodes the answer, which
// must have the status.
func (c apiClient) do(method, path string, body io.Reader, contentType string, status int, out any) error {
	req, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if method == http.MethodPost {
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != status {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}
