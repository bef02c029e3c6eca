// Command ppwr is the whole service: the HTTP API, the Temporal worker, the
// migrations and the operator's administration commands.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"ppwr/internal/config"
	"ppwr/internal/telemetry"
)

func main() {
	slog.SetDefault(slog.New(telemetry.LogHandler(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := rootCommand().ExecuteContext(ctx); err != nil {
		os.Exit(1)
	}
}

func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "ppwr",
		Short:         "Packaging compliance (PPWR) integration service",
		Long:          "ppwr runs the packaging compliance API and its worker.\n\n" + environmentHelp(),
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.AddCommand(serveCommand(), workerCommand(), mailinCommand(), supportCommand(), devCommand(), migrateCommand(), adminCommand())
	return root
}

func environmentHelp() string {
	out := "Environment (default in parentheses):\n"
	for _, v := range config.Variables {
		out += fmt.Sprintf("  %-38s %s (%s)\n", v.Name, v.Description, v.Default)
	}
	return out
}
