package worker

import (
	"context"

	"ppwr/internal/bound"
	"ppwr/internal/clamav"
	"ppwr/internal/health"
	"ppwr/internal/mail"
)

// Readiness are the worker's readiness checks (`ppwr worker` serves them
// on WORKER_HEALTH_ADDR): every service its activities wait on, so an
// operator sees which one holds the work up. A check for a service the
// worker is not given is left out.
func Readiness(d Deps) health.Checks {
	checks := health.Checks{
		bound.Postgres: health.Postgres(d.DB),
		bound.Temporal: health.Temporal(d.Temporal),
	}
	if d.Storage != nil {
		checks[bound.S3] = d.Storage.Ping
	}
	if d.ClamdAddress != "" {
		checks[bound.Clamd] = clamav.New(d.ClamdAddress).Ping
	}
	if d.SMTPURL != "" {
		checks[bound.SMTP] = func(ctx context.Context) error {
			sender, err := mail.NewSender(d.SMTPURL)
			if err != nil {
				return err
			}
			return sender.Ping(ctx)
		}
	}
	return checks
}
