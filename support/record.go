package support

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/domain/attention"
	"ppwr/internal/i18n"
	"ppwr/internal/temporalclient"
)

// A record's page shows one record a kind names (attention.Find): its
// state, its history, its runs as Temporal has them and the actions its
// state allows. Each action is a form that posts to the page's path and
// the action's name; it runs attention.Perform, the admin CLI's command,
// and sends the browser back to the page with what came of it.

// runsTimeout bounds the page's calls to Temporal: an unreachable Temporal
// leaves the runs out of the page instead of holding it.
const runsTimeout = 5 * time.Second

// recordPage is what the record template shows.
type recordPage struct {
	Record *attention.Record
	// Path is the page's own; an action posts to Path/<action>.
	Path string
	// Flash is what came of the action just taken, if any.
	Flash *flash
	// Workflows are the record's workflows with their runs, unless
	// RunsError says why Temporal could not tell.
	Workflows []workflowRuns
	RunsError string
}

type workflowRuns struct {
	ID   string
	Runs []runRow
}

type runRow struct {
	temporalclient.Run
	// Link opens the run in the Temporal UI; empty without TEMPORAL_UI_URL.
	Link string
}

// recordPath is the page of the record id of kind.
func recordPath(kind attention.Kind, id uuid.UUID) string {
	return "/attention/" + string(kind) + "/" + id.String()
}

// recordOf reads the kind and the id of the request's path; ok is false
// when either names nothing.
func recordOf(r *http.Request) (attention.Kind, uuid.UUID, bool) {
	kind, err := attention.ParseKind(r.PathValue("kind"))
	if err != nil {
		return "", uuid.Nil, false
	}
	id, err := uuid.Parse(r.PathValue("id"))
	return kind, id, err == nil
}

func (s *Server) record(w http.ResponseWriter, r *http.Request) {
	kind, id, ok := recordOf(r)
	if !ok {
		s.Fail(w, r, domain.ErrNotFound)
		return
	}
	ctx := r.Context()
	rec, err := attention.Find(ctx, s.db, kind, id)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	page := recordPage{Record: rec, Path: recordPath(kind, id), Flash: s.takeFlash(w, r)}
	if page.Workflows, err = s.runs(ctx, rec.WorkflowIDs); err != nil {
		slog.WarnContext(ctx, "support console: reading runs from Temporal", "kind", kind, "id", id, "error", err)
		page.RunsError = err.Error()
	}
	s.Render(w, r, http.StatusOK, "record", page)
}

// runs are the runs of each workflow, newest first, and the workflows
// the latest first (an import's apply before its preview, a resend
// before the delivery), as the page shows everything else: what happened
// last is what support looks for.
func (s *Server) runs(ctx context.Context, workflowIDs []string) ([]workflowRuns, error) {
	ctx, cancel := context.WithTimeout(ctx, runsTimeout)
	defer cancel()
	var out []workflowRuns
	for _, id := range slices.Backward(workflowIDs) {
		runs, err := temporalclient.Runs(ctx, s.temporal, id)
		if err != nil {
			return nil, err
		}
		wf := workflowRuns{ID: id}
		for _, run := range runs {
			row := runRow{Run: run}
			if s.temporalUI != "" {
				row.Link = temporalclient.UILink(s.temporalUI, s.namespace, run.WorkflowID, run.RunID)
			}
			wf.Runs = append(wf.Runs, row)
		}
		out = append(out, wf)
	}
	return out, nil
}

// perform takes the action the path names on the record and sends the
// browser back to the record's page, which says what came of it: the run
// it started, or the domain's refusal. The domain refuses a state that
// does not allow the action and a run still open, so a double click or a
// replayed form starts one run and is told why not the second time.
func (s *Server) perform(w http.ResponseWriter, r *http.Request) {
	kind, id, ok := recordOf(r)
	action, err := attention.ParseAction(r.PathValue("action"))
	if !ok || err != nil {
		s.Fail(w, r, domain.ErrNotFound)
		return
	}
	ctx, lang := r.Context(), Locale(r)
	run, err := attention.Perform(ctx, s.db, action, id, s.actions)
	var refused *domain.RefusedError
	var f flash
	switch {
	case errors.As(err, &refused):
		f = flash{Error: true, Text: refused.Message(lang)}
	case errors.Is(err, domain.ErrNotFound):
		s.Fail(w, r, err)
		return
	case err != nil:
		// Temporal unreachable, most likely: the person may try again.
		slog.ErrorContext(ctx, "support console: action failed", "action", action, "kind", kind, "id", id, "error", err)
		f = flash{Error: true, Text: i18n.T(lang, "support.action.failed", err.Error())}
	case run.RunID == "":
		f = flash{Text: i18n.T(lang, "support.action.queued", run.WorkflowID)}
	default:
		f = flash{Text: i18n.T(lang, "support.action.started", run.RunID, run.WorkflowID)}
	}
	slog.InfoContext(ctx, "support console: action", "action", action, "kind", kind, "id", id,
		"operator", SignedIn(r).Name, "workflow_id", run.WorkflowID, "run_id", run.RunID, "refused", refused != nil)
	path := recordPath(kind, id)
	s.setFlash(w, path, f)
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// flash is what came of an action, shown once by the page the action
// sends the browser back to.
type flash struct {
	Error bool   `json:"error,omitempty"`
	Text  string `json:"text"`
}

// flashCookie carries a flash from an action to its record's page, and
// only to it: its path is the page's.
const flashCookie = "ppwr_support_flash"

// flashFor is how long a flash waits for its page: the redirect follows
// at once.
const flashFor = time.Minute

func (s *Server) setFlash(w http.ResponseWriter, path string, f flash) {
	raw, _ := json.Marshal(f) // a bool and a string always marshal
	c := s.cookie(flashCookie, base64.RawURLEncoding.EncodeToString(raw), time.Now().Add(flashFor))
	c.Path = path
	http.SetCookie(w, c)
}

// takeFlash is the request's flash, if any, which it forgets: a reload
// does not show it again.
func (s *Server) takeFlash(w http.ResponseWriter, r *http.Request) *flash {
	c, err := r.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	gone := s.cookie(flashCookie, "", time.Unix(0, 0))
	gone.Path, gone.MaxAge = r.URL.Path, -1
	http.SetCookie(w, gone)
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	var f flash
	if err != nil || json.Unmarshal(raw, &f) != nil {
		return nil
	}
	return &f
}
