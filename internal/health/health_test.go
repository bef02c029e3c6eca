package health

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAnAdvisoryCheckDegradesButKeepsTheProcessReady(t *testing.T) {
	ok := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("connection refused") }

	for _, c := range []struct {
		name   string
		checks Checks
		status string
		ready  bool
	}{
		{"all answer", Checks{"postgres": ok, "temporal": Advisory(ok)}, "ready", true},
		{"advisory down", Checks{"postgres": ok, "temporal": Advisory(down)}, "degraded", true},
		{"required down", Checks{"postgres": down, "temporal": Advisory(ok)}, "unavailable", false},
		{"both down", Checks{"postgres": down, "temporal": Advisory(down)}, "unavailable", false},
	} {
		report, ready := c.checks.Run(t.Context())
		assert.Equal(t, c.ready, ready, c.name)
		assert.Equal(t, c.status, report.Status, c.name)
		for name, check := range c.checks {
			if check(t.Context()) == nil {
				assert.Equal(t, "ok", report.Checks[name], c.name)
			} else {
				assert.Equal(t, "connection refused", report.Checks[name], "%s: the failing service is named with its error", c.name)
			}
		}
	}
}
