package main

import (
	"context"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"ppwr/internal/config"
	"ppwr/internal/telemetry"
)

// appCommand is a long-running subcommand over every connection of the app,
// with its metrics listener on METRICS_ADDR, or on metricsDefault when that
// is unset (empty: none unless METRICS_ADDR is set).
func appCommand(use, short, metricsDefault string, run func(*app, context.Context) error) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stopTracing, err := telemetry.StartTracing(cmd.Context(), "ppwr-"+use)
			if err != nil {
				return err
			}
			defer func() { _ = stopTracing(context.Background()) }()
			a, err := openApp(cmd.Context())
			if err != nil {
				return err
			}
			defer a.close()
			addr := a.cfg.MetricsAddr
			if addr == "" {
				addr = metricsDefault
			}
			if addr == "" || addr == config.MetricsOff {
				return run(a, cmd.Context())
			}
			// The listener stops with the command, and a port that cannot
			// be taken stops the command.
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			g, gctx := errgroup.WithContext(ctx)
			g.Go(func() error { return a.metrics.Serve(gctx, addr) })
			g.Go(func() error {
				defer cancel()
				return run(a, gctx)
			})
			return g.Wait()
		},
	}
}

func serveCommand() *cobra.Command {
	return appCommand("serve", "Run the HTTP API (stateless; run as many replicas as needed)", config.MetricsDefaultAPI, (*app).serveHTTP)
}

func workerCommand() *cobra.Command {
	return appCommand("worker", "Run the Temporal worker and the event relay on the task queue", config.MetricsDefaultWorker, (*app).runWorker)
}

func mailinCommand() *cobra.Command {
	return appCommand("mailin", "Receive supplier replies over SMTP from the MTA of the reply domain (INBOUND_SMTP_ADDR)", "", (*app).receiveMail)
}

func migrateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Apply the database migrations and exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, db, err := openDB(cmd.Context())
			if err != nil {
				return err
			}
			defer closeDB(db)
			return migrate(cmd.Context(), db)
		},
	}
}

func devCommand() *cobra.Command {
	return appCommand("dev", "Apply migrations, ensure the bucket, then run the API, the worker, the mail receiver and the support console in one process",
		config.MetricsDefaultAPI, func(a *app, ctx context.Context) error {
			if err := migrate(ctx, a.db); err != nil {
				return err
			}
			if err := a.storage.EnsureBucket(ctx); err != nil {
				return err
			}
			g, gctx := errgroup.WithContext(ctx)
			g.Go(func() error { return a.serveHTTP(gctx) })
			g.Go(func() error { return a.runWorker(gctx) })
			g.Go(func() error { return a.receiveMail(gctx) })
			g.Go(func() error { return a.serveSupport(gctx) })
			return g.Wait()
		})
}
