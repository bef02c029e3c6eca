package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"gorm.io/gorm"

	"ppwr/domain"
)

// waitFlags are --wait and its companions on a command that starts a
// long job.
type waitFlags struct {
	wait           bool
	every, timeout time.Duration
}

func addWaitFlags(cmd *cobra.Command) *waitFlags {
	f := &waitFlags{}
	cmd.Flags().BoolVar(&f.wait, "wait", false,
		"wait until the job ends, showing its progress; with --json, print one JSON line per change of its progress, then the result object")
	// A second: progress moves at least once a second while the job works.
	cmd.Flags().DurationVar(&f.every, "poll-interval", time.Second, "with --wait, how often to read the job's progress")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 0, "with --wait, stop waiting after this long (0: no limit); the job goes on")
	return f
}

// valid refuses flags --wait cannot work with, before the job starts.
func (f *waitFlags) valid() error {
	if f.wait && f.every <= 0 {
		return fmt.Errorf("--poll-interval must be positive, got %s", f.every)
	}
	if f.timeout < 0 {
		return fmt.Errorf("--timeout must not be negative, got %s", f.timeout)
	}
	return nil
}

// jobState is a long job's record as --wait reads it.
type jobState struct {
	Status  string
	Running bool
	// Failure says why the job ended failed; "" when it did not fail.
	Failure  string
	Progress domain.Progress
}

// jobRead reads a job's state.
type jobRead func(ctx context.Context, db *gorm.DB) (jobState, error)

// jobOf reads the organization's job record id of type T, tenant-scoped
// as every domain read, and states it with state.
func jobOf[T any](org, id uuid.UUID, state func(*T) (jobState, error)) jobRead {
	return func(ctx context.Context, db *gorm.DB) (jobState, error) {
		row, err := domain.Find[T](ctx, db, org, id)
		if err != nil {
			return jobState{}, err
		}
		return state(row)
	}
}

// await reads the job what names every --poll-interval until it is no
// longer running, showing its progress on cmd's stdout, when --wait was
// given. It fails when the job ended failed, and when waiting stops first
// (--timeout, an interrupt); the job itself goes on then.
func (f *waitFlags) await(ctx context.Context, cmd *cobra.Command, db *gorm.DB, what string, read jobRead) error {
	if !f.wait {
		return nil
	}
	asJSON, _ := cmd.Flags().GetBool("json")
	p := newProgressPrinter(cmd.OutOrStdout(), asJSON)
	defer p.end()
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	tick := time.NewTicker(f.every)
	defer tick.Stop()
	last := "running"
	for {
		s, err := read(ctx, db)
		if err != nil {
			if ctx.Err() != nil {
				return stoppedWaiting(ctx, what, last)
			}
			return err
		}
		p.show(s)
		if !s.Running {
			if s.Failure != "" {
				return fmt.Errorf("%s failed: %s", what, s.Failure)
			}
			return nil
		}
		last = s.Status
		select {
		case <-ctx.Done():
			return stoppedWaiting(ctx, what, last)
		case <-tick.C:
		}
	}
}

func stoppedWaiting(ctx context.Context, what, status string) error {
	why := "interrupted"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why = "--timeout passed"
	}
	return fmt.Errorf("stopped waiting for %s (%s): it is still %s and goes on", what, why, status)
}

// terminalWidth is the width of the bar's line on a terminal. Without a
// query of the terminal's size (golang.org/x/term is no dependency), a
// line within the classic 80 columns never wraps, which would break the
// redraw in place.
const terminalWidth = 80

// progressPrinter shows a job's progress as --wait reads it: with --json,
// one JSON object per line for each change; on a terminal, one line with
// a bar, redrawn in place at every read so the elapsed time moves;
// elsewhere (a pipe, a log file), that line once per change.
type progressPrinter struct {
	w       io.Writer
	asJSON  bool
	inPlace bool
	width   int
	now     func() time.Time
	started time.Time
	shown   *jobState
}

func newProgressPrinter(w io.Writer, asJSON bool) *progressPrinter {
	return &progressPrinter{w: w, asJSON: asJSON, inPlace: !asJSON && isTerminal(w), width: terminalWidth, now: time.Now, started: time.Now()}
}

// isTerminal takes a character device for a terminal: /dev/null is one
// too, where a redraw is harmless.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progressLine is a --json line of progress; the result object that
// follows has no "progress", which tells them apart.
type progressLine struct {
	Status   string `json:"status"`
	Progress struct {
		Stage     string    `json:"stage"`
		Done      int64     `json:"done"`
		Total     *int64    `json:"total"`
		UpdatedAt time.Time `json:"updatedAt"`
	} `json:"progress"`
}

func (p *progressPrinter) show(s jobState) {
	changed := p.shown == nil || !sameProgress(*p.shown, s)
	p.shown = &s
	switch {
	case p.asJSON:
		if changed {
			var line progressLine
			line.Status = s.Status
			line.Progress.Stage, line.Progress.Done, line.Progress.Total = s.Progress.Stage, s.Progress.Done, s.Progress.Total
			line.Progress.UpdatedAt = s.Progress.MovedAt.UTC()
			_ = json.NewEncoder(p.w).Encode(line)
		}
	case p.inPlace:
		// Carriage return, then erase to the end of the line: a shorter
		// line leaves nothing of the longer one before it.
		fmt.Fprint(p.w, "\r"+renderBar(s, p.now().Sub(p.started), p.width)+"\x1b[K")
	case changed:
		fmt.Fprintln(p.w, renderBar(s, p.now().Sub(p.started), p.width))
	}
}

// end ends the line redrawn in place, so what follows starts on its own.
func (p *progressPrinter) end() {
	if p.inPlace && p.shown != nil {
		fmt.Fprintln(p.w)
	}
}

// sameProgress reports whether b shows what a showed: a change of only
// the time it was recorded is none.
func sameProgress(a, b jobState) bool {
	return a.Status == b.Status && a.Progress.Stage == b.Progress.Stage && a.Progress.Done == b.Progress.Done &&
		(a.Progress.Total == nil) == (b.Progress.Total == nil) && (a.Progress.Total == nil || *a.Progress.Total == *b.Progress.Total)
}

// Bounds of the bar between its brackets.
const (
	minBar = 10
	maxBar = 40
)

// renderBar is the one-line view of s after elapsed, in width columns:
//
//	applying [#########...........]  450/1000  45%  12s
//
// A running job shows its stage, a final one its status; a stage whose
// total is not known yet shows its count alone.
func renderBar(s jobState, elapsed time.Duration, width int) string {
	label := s.Progress.Stage
	if !s.Running {
		label = s.Status
	}
	counts, pct, filled := fmt.Sprintf("%d/?", s.Progress.Done), "?", 0.0
	if t := s.Progress.Total; t != nil {
		counts = fmt.Sprintf("%d/%d", s.Progress.Done, *t)
		filled = 1
		if *t > 0 {
			filled = min(float64(s.Progress.Done)/float64(*t), 1)
		} else if s.Running {
			filled = 0
		}
		pct = fmt.Sprintf("%d%%", int(filled*100))
	}
	tail := fmt.Sprintf("  %s  %4s  %s", counts, pct, elapsed.Round(time.Second))
	bar := min(max(width-len(label)-len(tail)-3, minBar), maxBar)
	done := int(filled * float64(bar))
	return fmt.Sprintf("%s [%s%s]%s", label, strings.Repeat("#", done), strings.Repeat(".", bar-done), tail)
}
