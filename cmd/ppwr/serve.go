package main

import (
	"context"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
)

// appCommand is a long-running subcommand over every connection of the app.
func appCommand(use, short string, run func(*app, context.Context) error) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := openApp(cmd.Context())
			if err != nil {
				return err
			}
			defer a.close()
			return run(a, cmd.Context())
		},
	}
}

func serveCommand() *cobra.Command {
	return appCommand("serve", "Run the HTTP API (stateless; run as many replicas as needed)", (*app).serveHTTP)
}

func workerCommand() *cobra.Command {
	return appCommand("worker", "Run the Temporal worker and the event relay on the task queue", (*app).runWorker)
}

func mailinCommand() *cobra.Command {
	return appCommand("mailin", "Receive supplier replies over SMTP from the MTA of the reply domain (INBOUND_SMTP_ADDR)", (*app).receiveMail)
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
	return appCommand("dev", "Apply migrations, ensure the bucket, then run the API, the worker and the mail receiver in one process",
		func(a *app, ctx context.Context) error {
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
			return g.Wait()
		})
}
