package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/i18n"
)

// The README's rule table is what a compliance officer reads: every
// column but the last (the outcomes, in words) is the catalogue's, so it
// is checked against it. PPWR_WRITE_README=1 rewrites those columns,
// keeping each rule's outcomes.
const (
	tableBegin = "<!-- rule table: generated from internal/rules, outcomes kept -->"
	tableEnd   = "<!-- end of rule table -->"
)

func TestTheREADMERuleTableIsTheCatalogue(t *testing.T) {
	path := filepath.Join("..", "..", "README.md")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	readme := string(raw)
	begin, end := strings.Index(readme, tableBegin), strings.Index(readme, tableEnd)
	require.True(t, begin >= 0 && end > begin, "the README marks its rule table")
	outcomes := map[string]string{}
	for _, line := range strings.Split(readme[begin:end], "\n") {
		if cells := strings.Split(line, " | "); len(cells) > 2 && strings.HasPrefix(line, "| R") {
			outcomes[strings.TrimPrefix(cells[0], "| ")] = strings.TrimSuffix(cells[len(cells)-1], " |")
		}
	}
	var table strings.Builder
	table.WriteString(tableBegin + "\n\n| Rule | Article | Check | Level | Rule set | In scope | Reads | Outcomes |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range All {
		from, pending := r.Start.From(Acts{})
		date := from.Format("2006-01-02")
		if pending {
			date += " at the earliest (pending act)"
		}
		out := outcomes[r.Code]
		if out == "" {
			out = "—"
		}
		fmt.Fprintf(&table, "| %s | %s | %s | %s | `%s` | %s; from %s | %s | %s |\n", r.Code, r.Article, r.Check, r.Level, r.RuleSet,
			i18n.T(i18n.EN, r.ScopeKey()), date, strings.Join(r.Reads, ", "), out)
	}
	table.WriteString("\n")
	if os.Getenv("PPWR_WRITE_README") != "" {
		require.NoError(t, os.WriteFile(path, []byte(readme[:begin]+table.String()+readme[end:]), 0o644))
		return
	}
	assert.Equal(t, table.String(), readme[begin:end], "run PPWR_WRITE_README=1 go test ./internal/rules -run TestTheREADMERuleTableIsTheCatalogue")
	for _, r := range All {
		assert.NotEqual(t, "—", outcomes[r.Code], "%s: the README says which outcomes it gives", r.Code)
	}
}
