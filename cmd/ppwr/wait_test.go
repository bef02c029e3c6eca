package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
)

// waitLines runs `ppwr admin <args> --wait --json` and returns the JSON
// objects of its stdout, one a line, as the --wait contract promises.
func waitLines(t *testing.T, args ...string) ([]map[string]any, error) {
	t.Helper()
	out, _, err := runAdmin(t, append(args, "--wait", "--poll-interval", "20ms", "--json")...)
	var objs []map[string]any
	for line := range strings.Lines(out) {
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &obj), "a line of stdout is not one JSON object: %q", line)
		objs = append(objs, obj)
	}
	require.NotEmpty(t, objs, "stdout: %q", out)
	return objs, err
}

// requireProgress checks the progress lines before the last line: one
// per change, never going back in stages (in order) nor in done, the last
// at total of the last stage. It returns the last line, the result.
func requireProgress(t *testing.T, lines []map[string]any, stages domain.Stages, stage string, total int64) map[string]any {
	t.Helper()
	require.GreaterOrEqual(t, len(lines), 2, "progress, then the result: %v", lines)
	type point struct {
		status, stage string
		rank          int
		done          float64
		total         any
	}
	var seen []point
	for _, line := range lines[:len(lines)-1] {
		require.ElementsMatch(t, []string{"status", "progress"}, slices.Collect(maps.Keys(line)), "a progress line: %v", line)
		p := line["progress"].(map[string]any)
		require.ElementsMatch(t, []string{"stage", "done", "total", "updatedAt"}, slices.Collect(maps.Keys(p)))
		at := point{status: line["status"].(string), stage: p["stage"].(string), rank: slices.Index(stages, p["stage"].(string)), done: p["done"].(float64), total: p["total"]}
		require.GreaterOrEqual(t, at.rank, 0, "a stage of the job: %v", line)
		if n := len(seen); n > 0 {
			before := seen[n-1]
			assert.NotEqual(t, before, at, "a line per change")
			assert.True(t, at.rank > before.rank || at.rank == before.rank && at.done >= before.done, "never back: %v after %v", at, before)
		}
		seen = append(seen, at)
	}
	end := seen[len(seen)-1]
	assert.Equal(t, stage, end.stage)
	assert.Equal(t, float64(total), end.done, "ends at the total")
	assert.Equal(t, float64(total), end.total)
	result := lines[len(lines)-1]
	assert.NotContains(t, result, "progress")
	return result
}

func TestRenderBar(t *testing.T) {
	of := func(n int64) *int64 { return &n }
	for name, c := range map[string]struct {
		s       jobState
		elapsed time.Duration
		width   int
		want    string
	}{
		"under way": {jobState{Status: "applying", Running: true, Progress: domain.Progress{Stage: "applying", Done: 450, Total: of(1000)}},
			12*time.Second + 400*time.Millisecond, 60, "applying [############................]  450/1000   45%  12s"},
		"total unknown": {jobState{Status: "queued", Running: true, Progress: domain.Progress{Stage: "previewing", Done: 1234}},
			3 * time.Second, 50, "previewing [...................]  1234/?     ?  3s"},
		"final shows the status": {jobState{Status: "completed", Progress: domain.Progress{Stage: "assessing", Done: 7, Total: of(7)}},
			time.Minute + 5*time.Second, 50, "completed [#####################]  7/7  100%  1m5s"},
		"nothing to do, done": {jobState{Status: "completed", Progress: domain.Progress{Stage: "assessing", Total: of(0)}},
			0, 40, "completed [#############]  0/0  100%  0s"},
		"nothing counted yet": {jobState{Status: "running", Running: true, Progress: domain.Progress{Stage: "queued", Total: of(0)}},
			0, 40, "queued [................]  0/0    0%  0s"},
		"wide stays bounded": {jobState{Status: "applying", Running: true, Progress: domain.Progress{Stage: "applying", Done: 1, Total: of(2)}},
			time.Second, 500, "applying [" + strings.Repeat("#", maxBar/2) + strings.Repeat(".", maxBar/2) + "]  1/2   50%  1s"},
	} {
		t.Run(name, func(t *testing.T) {
			got := renderBar(c.s, c.elapsed, c.width)
			assert.Equal(t, c.want, got)
			if c.width <= len(c.want) {
				assert.Len(t, got, c.width, "the bar fills the width")
			}
		})
	}
}

// fakeClock moves only when told.
type fakeClock struct{ at time.Time }

func (c *fakeClock) now() time.Time { return c.at }

// On a terminal the line is redrawn in place at every read, so the
// elapsed time moves even when the progress does not, and ends with a
// newline; elsewhere a line is written per change only.
func TestProgressPrinterRedrawsInPlace(t *testing.T) {
	total := int64(4)
	states := []jobState{
		{Status: "running", Running: true, Progress: domain.Progress{Stage: "queued"}},
		{Status: "running", Running: true, Progress: domain.Progress{Stage: "assessing", Done: 2, Total: &total}},
		{Status: "running", Running: true, Progress: domain.Progress{Stage: "assessing", Done: 2, Total: &total}},
		{Status: "completed", Progress: domain.Progress{Stage: "assessing", Done: 4, Total: &total}},
	}
	show := func(inPlace bool) string {
		var out bytes.Buffer
		clock := &fakeClock{at: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
		p := &progressPrinter{w: &out, inPlace: inPlace, width: 40, now: clock.now, started: clock.at}
		for _, s := range states {
			p.show(s)
			clock.at = clock.at.Add(time.Second)
		}
		p.end()
		return out.String()
	}
	assert.Equal(t, "\rqueued [................]  0/?     ?  0s\x1b[K"+
		"\rassessing [######.......]  2/4   50%  1s\x1b[K"+
		"\rassessing [######.......]  2/4   50%  2s\x1b[K"+
		"\rcompleted [#############]  4/4  100%  3s\x1b[K\n", show(true))
	assert.Equal(t, "queued [................]  0/?     ?  0s\n"+
		"assessing [######.......]  2/4   50%  1s\n"+
		"completed [#############]  4/4  100%  3s\n", show(false))
}

// A buffer or a pipe is no terminal; stdout is one only when it is.
func TestIsTerminal(t *testing.T) {
	assert.False(t, isTerminal(&bytes.Buffer{}))
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, isTerminal(f), "a file")
}
