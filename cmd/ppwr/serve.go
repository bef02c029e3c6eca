package main

import (
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
)

func serveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP API (stateless; run as many replicas as needed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := openApp(cmd.Context())
			if err != nil {
				return err
			}
			defer a.close()
			return a.serveHTTP(cmd.Context())
		},
	}
}

func workerCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "worker",
		Short: "Run the Temporal worker on the task queue",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := openApp(cmd.Context())
			if err != nil {
				return err
			}
			defer a.close()
			return a.runWorker(cmd.Context())
		},
	}
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
	return &cobra.Command{
		Use:   "dev",
		Short: "Apply migrations, ensure the bucket, then run the API and the worker in one process",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			a, err := openApp(ctx)
			if err != nil {
				return err
			}
			defer a.close()
			if err := migrate(ctx, a.db); err != nil {
				return err
			}
			if err := a.storage.EnsureBucket(ctx); err != nil {
				return err
			}
			g, gctx := errgroup.WithContext(ctx)
			g.Go(func() error { return a.serveHTTP(gctx) })
			g.Go(func() error { return a.runWorker(gctx) })
			return g.Wait()
		},
	}
}
