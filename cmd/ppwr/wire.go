package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/api"
	"ppwr/api/kit"
	"ppwr/domain/webhooks"
	"ppwr/inbound"
	"ppwr/internal/config"
	"ppwr/internal/credcache"
	"ppwr/internal/database"
	"ppwr/internal/health"
	"ppwr/internal/mailin"
	"ppwr/internal/storage"
	"ppwr/internal/telemetry"
	"ppwr/internal/temporalclient"
	"ppwr/migrations"
	"ppwr/support"
	"ppwr/worker"
)

// app holds the connections a subcommand opened.
type app struct {
	cfg      config.Config
	db       *gorm.DB
	temporal client.Client
	storage  *storage.Store
	// metrics is the process's one registry: the pool, the requests, the
	// relay, webhook attempts, imports and the Temporal SDK's series.
	metrics *telemetry.Metrics
}

func openDB(ctx context.Context) (config.Config, *gorm.DB, error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return cfg, nil, err
	}
	db, err := database.Open(ctx, cfg.DatabaseURL)
	return cfg, db, err
}

// openApp connects to everything the API and the worker need.
func openApp(ctx context.Context) (*app, error) {
	cfg, db, err := openDB(ctx)
	if err != nil {
		return nil, err
	}
	metrics, err := telemetry.NewMetrics()
	if err == nil {
		err = metrics.WatchDB(db)
	}
	if err != nil {
		return nil, err
	}
	tc, err := temporalclient.Dial(cfg, func(o *client.Options) error {
		o.MetricsHandler = metrics.Temporal
		return telemetry.TraceTemporal(o)
	})
	if err != nil {
		return nil, err
	}
	store := storage.New(storage.Options{
		Endpoint: cfg.S3Endpoint, Region: cfg.S3Region, Bucket: cfg.S3Bucket,
		AccessKeyID: cfg.AWSAccessKeyID, SecretAccessKey: cfg.AWSSecretAccessKey, Timeout: cfg.S3Timeout,
	})
	return &app{cfg: cfg, db: db, temporal: tc, storage: store, metrics: metrics}, nil
}

func (a *app) close() {
	a.temporal.Close()
	a.metrics.Close()
	closeDB(a.db)
}

func closeDB(db *gorm.DB) {
	if sqlDB, err := db.DB(); err == nil {
		_ = sqlDB.Close()
	}
}

func migrate(ctx context.Context, db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	applied, err := migrations.Apply(ctx, sqlDB)
	if err != nil {
		return err
	}
	slog.Info("migrations applied", "versions", applied)
	return nil
}

// serveHTTP runs the API until ctx is cancelled, then drains requests.
func (a *app) serveHTTP(ctx context.Context) error {
	creds := credcache.New()
	go creds.Listen(ctx, a.cfg.DatabaseListenURL)
	engine, err := api.NewEngine(api.Deps{Deps: kit.Deps{Config: a.cfg, DB: a.db, Temporal: a.temporal, Storage: a.storage}, Credentials: creds})
	if err != nil {
		return err
	}
	slog.Info("api listening", "addr", a.cfg.HTTPAddr, "base_url", a.cfg.PublicBaseURL+"/api/v1")
	return listenUntilDone(ctx, a.cfg.HTTPAddr, engine)
}

// serveSupport runs the support console until ctx is cancelled, then
// drains requests.
func (a *app) serveSupport(ctx context.Context) error {
	console, err := support.New(support.Deps{
		DB: a.db, Addr: a.cfg.SupportAddr, TrustedHeader: a.cfg.SupportTrustedHeader,
		Temporal: a.temporal, TaskQueue: a.cfg.TemporalTaskQueue, Namespace: a.cfg.TemporalNamespace, TemporalUIURL: a.cfg.TemporalUIURL,
		WebhookRetry: webhooks.Retry{Initial: a.cfg.WebhookRetryInitial, For: a.cfg.WebhookRetryFor},
	})
	if err != nil {
		return err
	}
	slog.Info("support console listening", "addr", a.cfg.SupportAddr, "url", "http://"+a.cfg.SupportAddr, "trusted_header", a.cfg.SupportTrustedHeader)
	return listenUntilDone(ctx, a.cfg.SupportAddr, console)
}

// listenUntilDone serves handler on addr until ctx is cancelled, then
// drains requests for up to 15 s.
func listenUntilDone(ctx context.Context, addr string, handler http.Handler) error {
	srv := &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// runWorker polls the task queue until ctx is cancelled.
func (a *app) runWorker(ctx context.Context) error {
	if err := a.metrics.WatchRelay(a.db); err != nil {
		return err
	}
	if err := worker.EnsureSchedules(ctx, a.temporal, a.cfg.TemporalTaskQueue); err != nil {
		return err
	}
	deps := worker.Deps{
		DB: a.db, Temporal: a.temporal, TaskQueue: a.cfg.TemporalTaskQueue, Storage: a.storage,
		ClamdAddress: a.cfg.ClamdAddress, SMTPURL: a.cfg.SMTPURL, MailFrom: a.cfg.MailFrom, MailReplyAddress: a.cfg.MailReplyAddress,
		DocumentMaxBytes: a.cfg.DocumentMaxBytes, WebhookAllowHTTPLoopback: a.cfg.WebhookAllowHTTPLoopback,
	}
	w := worker.New(deps)
	if err := w.Start(); err != nil {
		return err
	}
	if a.cfg.WorkerHealthAddr != "" {
		go serveHealth(ctx, a.cfg.WorkerHealthAddr, worker.Readiness(deps))
	}
	slog.Info("worker polling", "task_queue", a.cfg.TemporalTaskQueue)
	relay := &worker.Relay{
		DB: a.db, Temporal: a.temporal, TaskQueue: a.cfg.TemporalTaskQueue,
		RetryInitial: a.cfg.WebhookRetryInitial, RetryFor: a.cfg.WebhookRetryFor, Interval: time.Second,
		ListenURL: a.cfg.DatabaseListenURL,
	}
	relay.Run(ctx) // returns when ctx is cancelled
	w.Stop()
	return nil
}

// serveHealth answers the worker's probes until ctx is cancelled; a
// listener that cannot start is logged, not fatal, as the work goes on
// without it.
func serveHealth(ctx context.Context, addr string, checks health.Checks) {
	srv := &http.Server{Addr: addr, Handler: health.Handler(checks), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	slog.Info("worker health listening", "addr", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		slog.Error("worker health listener", "addr", addr, "error", err)
	}
}

// receiveMail takes supplier replies over SMTP until ctx is cancelled.
func (a *app) receiveMail(ctx context.Context) error {
	receiver := &inbound.Receiver{DB: a.db, Storage: a.storage, ReplyAddress: a.cfg.MailReplyAddress}
	_, domain, _ := strings.Cut(a.cfg.MailReplyAddress, "@")
	srv, err := mailin.Listen(a.cfg.InboundSMTPAddr, receiver, mailin.Options{Domain: domain, MaxBytes: a.cfg.InboundMaxBytes})
	if err != nil {
		return err
	}
	slog.Info("receiving supplier replies", "addr", srv.Addr(), "for", a.cfg.MailReplyAddress)
	<-ctx.Done()
	return srv.Close()
}
