package support_test

import (
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/attention"
	"ppwr/domain/attention/attentiontest"
	"ppwr/domain/imports"
	"ppwr/domain/operators"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/support"
	"ppwr/worker"
)

// screenshotPath is the README's picture of the console, which the
// browser test takes: PPWR_WRITE_SCREENSHOT=1 writes it again.
var screenshotPath = filepath.Join(testenv.RepoRoot(), "docs", "support-console.png")

// terminatedApply is a catalogue import of two valid items, uploaded,
// previewed by the worker and applied as the API does, whose apply run,
// started by the relay, was terminated with reason before it did
// anything (started on a queue no worker polls, so that nothing races
// the termination).
func terminatedApply(t *testing.T, o *attentiontest.Org, queue, reason string) (*imports.Import, temporalclient.Run) {
	t.Helper()
	ctx := context.Background()
	c := testenv.Temporal(t)
	code := "SUP-" + uuid.NewString()[:8]
	csv := "internalCode;name;sourcingType;massG;mainMaterialCode;stockUnit;foodContactStatus;reuseType\n" +
		code + "-1;Box;purchased;12.5;PLASTIC_PET;piece;unknown;single_use\n" +
		code + "-2;Lid;purchased;3;PLASTIC_PET;piece;unknown;single_use\n"
	w := o.Unit()
	imp, err := imports.CreateImport(w, domain.NewID(), imports.ImportUpload{Type: imports.ImportCatalog, FileName: "items.csv", Size: int64(len(csv))})
	require.NoError(t, err)
	require.NoError(t, testenv.Storage(t).Put(ctx, imp.ObjectKey, strings.NewReader(csv), "text/csv"))
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.upload"}))

	relay := func(queue string) {
		n, err := (&worker.Relay{DB: o.DB, Temporal: c, TaskQueue: queue}).StartWorkflows(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
	}
	relay(queue)
	require.Eventually(t, func() bool { return importStatus(t, o.DB, imp.ID) == imports.ImportReadyStatus }, time.Minute, 100*time.Millisecond, "previewed")

	w = o.Unit()
	_, err = imports.RequestImportApply(w, imp.ID)
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.apply"}))
	relay("nobody-" + uuid.NewString())
	apply := imports.ApplyWorkflow.ID(imp.WorkflowInput())
	runs, err := temporalclient.Runs(ctx, c, apply)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.NoError(t, c.TerminateWorkflow(ctx, apply, runs[0].RunID, reason))
	return imp, runs[0]
}

func importStatus(t *testing.T, db *gorm.DB, id uuid.UUID) string {
	t.Helper()
	var status string
	require.NoError(t, db.Model(&imports.Import{}).Where("id = ?", id).Pluck("status", &status).Error)
	return status
}

// text is the text of the element sel selects, once it is visible.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	out, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, sel)
	return out
}

// navigate runs the actions, which load a page, and answers its status.
func navigate(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) int64 {
	t.Helper()
	res, err := chromedp.RunResponse(ctx, actions...)
	require.NoError(t, err)
	return res.Status
}

// submit adds a form that posts csrf to action to the page, as a form
// kept from an earlier page or forged elsewhere would, and sends it.
func submit(t *testing.T, ctx context.Context, action, csrf string) int64 {
	t.Helper()
	add := `(() => {
		const f = document.createElement('form');
		f.method = 'post'; f.action = ` + strconv.Quote(action) + `;
		const c = document.createElement('input');
		c.type = 'hidden'; c.name = 'csrf'; c.value = ` + strconv.Quote(csrf) + `;
		const b = document.createElement('button');
		b.type = 'submit'; b.id = 'replayed'; b.textContent = 'Send';
		f.append(c, b);
		document.querySelector('main').append(f);
	})()`
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](add)))
	return navigate(t, ctx, chromedp.Click(chromedp.ID("replayed")))
}

// signInTab types token into the sign-in page of a new tab and answers the
// tab and the status of the page the form answered.
func signInTab(t *testing.T, base, token string) (context.Context, int64) {
	t.Helper()
	ctx := testenv.Browser(t)
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Navigate(base+"/attention")))
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("token"), token)))
	return ctx, navigate(t, ctx, chromedp.Click(chromedp.CSS("main button[type=submit]")))
}

// The end-to-end case, in a real Chromium, against the console on
// a real listener, PostgreSQL, the Temporal dev server and the service's
// worker: a support person signs in with a token, finds an import whose
// apply run was terminated, reads why, re-drives it from the keyboard,
// watches it complete and finds the audit entry; the same form sent again
// is refused with the domain's message, and so are a wrong CSRF token, an
// expired token and a revoked one. Every page passes axe-core.
func TestSupportConsoleInABrowser(t *testing.T) {
	// A database of the test's own: the relay starts every recorded start
	// it finds, and those of the package's other tests are not for this
	// worker.
	db, _, drop, err := testenv.CreateDatabase("ppwr_support_browser_")
	require.NoError(t, err)
	t.Cleanup(drop)
	c := testenv.Temporal(t)
	queue := "ppwr-support-" + uuid.NewString()
	wk := worker.New(worker.Deps{DB: db, Temporal: c, TaskQueue: queue, Storage: testenv.Storage(t)})
	require.NoError(t, wk.Start())
	t.Cleanup(wk.Stop)
	srv := httptest.NewServer(console(t, support.Deps{DB: db, TaskQueue: queue}))
	t.Cleanup(srv.Close)

	o := attentiontest.NewOrg(t, db)
	const reason = "stuck without progress for an hour; terminated by on-call"
	imp, terminated := terminatedApply(t, o, queue, reason)
	// A run that dies leaves its import as it was: the attention list
	// shows it once its progress has stood still for StuckAfter. The test
	// sets its clock back by that much instead of waiting.
	stale := time.Now().Add(-attention.StuckAfter - time.Minute)
	require.NoError(t, db.Exec(`UPDATE imports SET updated_at = ?, progress_updated_at = ? WHERE id = ?`, stale, stale, imp.ID).Error)
	record := "/attention/import_stuck/" + imp.ID.String()
	name := uniqueName("Ada")
	tok, secret, err := operators.CreateToken(t.Context(), db, name, time.Hour)
	require.NoError(t, err)

	// 1. Sign in with the token.
	ctx := testenv.Browser(t)
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Navigate(srv.URL+"/attention")))
	location, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/signin?next=%2Fattention", location)
	testenv.AssertAccessible(t, ctx)
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("token"), secret)))
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.KeyEvent(kb.Enter)), "Enter submits the form")
	assert.Equal(t, "Signed in as "+name, text(t, ctx, ".signout span"))

	// 2. Find the import: its organization's stuck imports.
	testenv.AssertAccessible(t, ctx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("org"), o.ID.String()),
		chromedp.SetValue(chromedp.ID("kind"), string(attention.ImportStuck)),
	))
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Click(chromedp.CSS(".filter button"))))
	row := text(t, ctx, "#attention tbody tr")
	assert.Contains(t, row, o.Name)
	assert.Contains(t, row, "Imports waiting with no run")
	assert.Contains(t, row, "applying")
	assert.Contains(t, row, "Waiting for its apply, which has not moved for a while")
	testenv.AssertAccessible(t, ctx)
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Click(chromedp.CSS(`a[href="`+record+`"]`))))

	// 3. Read why, in the record and in its terminated run, then press
	// re-drive from the keyboard.
	assert.Contains(t, text(t, ctx, "#reason"), "Waiting for its apply")
	applyRuns := text(t, ctx, "#workflow-0 + table")
	assert.Contains(t, applyRuns, terminated.RunID)
	assert.Contains(t, applyRuns, "terminated")
	assert.Contains(t, applyRuns, reason)
	assert.Contains(t, text(t, ctx, "#explain-redrive_import"), "Starts a new apply run")
	testenv.AssertAccessible(t, ctx)
	if os.Getenv("PPWR_WRITE_SCREENSHOT") != "" {
		testenv.Screenshot(t, ctx, screenshotPath)
	}
	form, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("form.action"), "action"))
	require.NoError(t, err)
	require.True(t, form.Exists)
	csrfAttr, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`form.action input[name="csrf"]`), "value"))
	require.NoError(t, err)
	csrf := csrfAttr.Value
	require.NotEmpty(t, csrf)
	focused := ""
	for range 30 {
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)))
		focused, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
		require.NoError(t, err)
		if focused == "action-redrive_import" {
			break
		}
	}
	require.Equal(t, "action-redrive_import", focused, "Tab reaches the re-drive button")
	outline, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(s => s.outlineStyle + ' ' + s.outlineWidth)(getComputedStyle(document.activeElement))`))
	require.NoError(t, err)
	assert.Equal(t, "solid 3px", outline, "the focused button shows it")
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.KeyEvent(kb.Enter)), "Enter presses it")
	flash := text(t, ctx, `#flash[role="status"]`)
	assert.Regexp(t, `^Started run [0-9a-f-]{36} of workflow import/`+imp.ID.String()+`/apply\.$`, flash)
	redrive := strings.Fields(flash)[2]

	// 4. Watch the import complete.
	status := ""
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Reload()))
		if status = text(t, ctx, "#status"); status == imports.ImportCompletedStatus {
			break
		}
	}
	require.Equal(t, imports.ImportCompletedStatus, status)
	assert.Equal(t, "It needs nobody now.", text(t, ctx, "#reason"))
	applyRuns = text(t, ctx, "#workflow-0 + table")
	assert.Contains(t, applyRuns, redrive)
	assert.Contains(t, applyRuns, "completed")

	// 5. The audit entry, in the page and in the database.
	history := text(t, ctx, "#history + table")
	assert.Contains(t, history, "operator: "+name+"\tadmin.imports.redrive")
	entries := redriveEntries(t, db, imp.ID)
	require.Len(t, entries, 1)
	assert.Equal(t, domain.ActorOperator, entries[0].ActorKind)
	assert.Equal(t, name, entries[0].ActorName)
	assert.Contains(t, string(entries[0].Summary), redrive)

	// 6. The same form, sent again, is refused with the domain's message.
	require.Equal(t, int64(http.StatusOK), submit(t, ctx, form.Value, csrf))
	assert.Equal(t, "import "+imp.ID.String()+" is completed, nothing to re-drive: it has been applied", text(t, ctx, `#flash[role="alert"]`))
	assert.Len(t, redriveEntries(t, db, imp.ID), 1, "nothing started, nothing audited")

	// 7. A wrong CSRF token, an expired token and a revoked token are
	// refused.
	apply := imports.ApplyWorkflow.ID(imp.WorkflowInput())
	runs, err := temporalclient.Runs(context.Background(), c, apply)
	require.NoError(t, err)
	require.Equal(t, int64(http.StatusForbidden), submit(t, ctx, form.Value, csrf+"x"))
	assert.Contains(t, text(t, ctx, `main [role="alert"]`), "This form has expired or did not come from this console, so nothing was changed.")
	testenv.AssertAccessible(t, ctx)
	after, err := temporalclient.Runs(context.Background(), c, apply)
	require.NoError(t, err)
	assert.Len(t, after, len(runs), "no run started")
	assert.Len(t, redriveEntries(t, db, imp.ID), 1)

	expired, expiredSecret, err := operators.CreateToken(t.Context(), db, uniqueName("Expired"), time.Hour)
	require.NoError(t, err)
	require.NoError(t, db.Model(&operators.Token{}).Where("id = ?", expired.ID).Update("expires_at", time.Now().Add(-time.Minute)).Error)
	revoked, revokedSecret, err := operators.CreateToken(t.Context(), db, uniqueName("Revoked"), time.Hour)
	require.NoError(t, err)
	_, err = operators.RevokeToken(t.Context(), db, revoked.ID)
	require.NoError(t, err)
	for what, secret := range map[string]string{"expired": expiredSecret, "revoked": revokedSecret} {
		tab, code := signInTab(t, srv.URL, secret)
		assert.Equal(t, int64(http.StatusUnauthorized), code, what)
		assert.Equal(t, "This token is unknown, expired or revoked.", text(t, tab, "#signin-error"), what)
		require.Equal(t, int64(http.StatusOK), navigate(t, tab, chromedp.Navigate(srv.URL+record)), what)
		location, err := chromedp.Run(tab, chromedp.Location())
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(location, srv.URL+"/signin?"), "%s: %s", what, location)
	}

	// The organization's pages pass axe-core too.
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Navigate(srv.URL+"/organizations")))
	testenv.AssertAccessible(t, ctx)
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Navigate(srv.URL+"/organizations/"+o.ID.String())))
	testenv.AssertAccessible(t, ctx)

	// Revoked, the person's own token ends their session at once.
	_, err = operators.RevokeToken(t.Context(), db, tok.ID)
	require.NoError(t, err)
	require.Equal(t, int64(http.StatusOK), navigate(t, ctx, chromedp.Navigate(srv.URL+record)))
	location, err = chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(location, srv.URL+"/signin?"), location)

	shot, err := os.Open(screenshotPath)
	require.NoError(t, err, "the README's screenshot: PPWR_WRITE_SCREENSHOT=1 go test ./support -run TestSupportConsoleInABrowser")
	defer shot.Close()
	img, err := png.Decode(shot)
	require.NoError(t, err)
	assert.Equal(t, testenv.ViewportWidth, img.Bounds().Dx())
}
