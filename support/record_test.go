package support_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/attention/attentiontest"
	"ppwr/domain/imports"
	"ppwr/domain/reports"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/support"
)

var flashParagraph = regexp.MustCompile(`<p id="flash" class="flash (?:notice|error)" role="(status|alert)">([^<]*)</p>`)

// flashOf is the role and the text of the page's flash; empty without one.
func flashOf(page string) (role, text string) {
	m := flashParagraph.FindStringSubmatch(page)
	if m == nil {
		return "", ""
	}
	return m[1], html.UnescapeString(m[2])
}

// act posts the record page's form of action with csrf and follows the
// redirect back to the page, answering it.
func (b *browser) act(path, action, csrf string) string {
	b.t.Helper()
	form := url.Values{}
	if csrf != "" {
		form.Set("csrf", csrf)
	}
	res := b.post(path+"/"+action, form)
	require.Equal(b.t, http.StatusSeeOther, res.StatusCode, body(b.t, res))
	require.Equal(b.t, path, res.Header.Get("Location"))
	return b.page(path)
}

// redriveEntries are the operator's re-drive entries of the import in
// the audit log.
func redriveEntries(t *testing.T, db *gorm.DB, id uuid.UUID) []domain.AuditEntry {
	t.Helper()
	var entries []domain.AuditEntry
	require.NoError(t, db.Where("record_id = ? AND operation = ?", id, "admin.imports.redrive").Order("occurred_at").Find(&entries).Error)
	return entries
}

func runsOf(t *testing.T, c client.Client, workflowID string) []temporalclient.Run {
	t.Helper()
	runs, err := temporalclient.Runs(context.Background(), c, workflowID)
	require.NoError(t, err)
	return runs
}

// A stuck import's page says why it is stuck and what a re-drive does;
// its button starts one run, audited under the person's name, shown
// with its link into the Temporal UI; pressed again while that run is
// open, it is refused with the domain's message, and a form without the
// session's CSRF token starts nothing.
func TestRecordPageRedrivesAStuckImport(t *testing.T) {
	db, c := testenv.DB(t), testenv.Temporal(t)
	o := attentiontest.NewOrg(t, db)
	imp := o.StuckImport(t, imports.ImportApplying)
	apply := imports.ApplyWorkflow.ID(imp.WorkflowInput())
	name := uniqueName("Rhea")
	b := signedIn(t, support.Deps{}, name)
	path := "/attention/import_stuck/" + imp.ID.String()

	page := b.page(path)
	assert.Contains(t, page, "<h1>Imports waiting with no run <code>"+imp.ID.String()+"</code></h1>")
	assert.Contains(t, page, `<dd id="status"><code>applying</code></dd>`)
	assert.Contains(t, page, "Waiting for its apply, which has not moved for a while")
	assert.Contains(t, page, `<a href="/organizations/`+o.ID.String()+`">`+o.Name+`</a>`)
	assert.Regexp(t, `<td>[0-9-]+ [0-9:]+ UTC</td>\s*<td>system</td>\s*<th scope="row"><code>test.upload</code></th>`, page, "the history")
	assert.Contains(t, page, `<button type="submit" id="action-redrive_import" aria-describedby="explain-redrive_import">Re-drive</button>`)
	assert.Contains(t, page, `<p id="explain-redrive_import" class="hint">Starts a new apply run, which resumes after the rows already applied; no row is applied twice.</p>`)
	assert.Contains(t, page, `<form class="action" method="post" action="`+path+`/redrive_import">`)
	assert.Contains(t, page, "<code>"+apply+"</code>")
	assert.Contains(t, page, "Temporal has no run of this workflow.")
	role, _ := flashOf(page)
	assert.Empty(t, role)

	res := b.post(path+"/redrive_import", url.Values{})
	assert.Equal(t, http.StatusForbidden, res.StatusCode, "no CSRF token")
	assert.Contains(t, body(t, res), "nothing was changed")
	assert.Empty(t, redriveEntries(t, db, imp.ID))
	assert.Empty(t, runsOf(t, c, apply), "no run started")

	csrf := b.csrf()
	role, text := flashOf(b.act(path, "redrive_import", csrf))
	runs := runsOf(t, c, apply)
	require.Len(t, runs, 1)
	run := runs[0]
	t.Cleanup(func() { _ = c.TerminateWorkflow(context.Background(), apply, run.RunID, "test over") })
	assert.Equal(t, temporalclient.RunRunning, run.Status)
	assert.Equal(t, "status", role)
	assert.Equal(t, "Started run "+run.RunID+" of workflow "+apply+".", text)
	entries := redriveEntries(t, db, imp.ID)
	require.Len(t, entries, 1)
	assert.Equal(t, domain.ActorOperator, entries[0].ActorKind)
	assert.Equal(t, name, entries[0].ActorName)
	assert.Equal(t, o.ID, entries[0].OrganizationID)

	page = b.page(path)
	role, _ = flashOf(page)
	assert.Empty(t, role, "the flash is shown once")
	assert.Regexp(t, `<td>operator: `+regexp.QuoteMeta(name)+`</td>\s*<th scope="row"><code>admin.imports.redrive</code></th>`, page)
	link := temporalclient.UILink(temporalUI, "default", apply, run.RunID)
	assert.Contains(t, page, `<th scope="row"><a href="`+link+`"><code>`+run.RunID+`</code></a></th>`)
	assert.Regexp(t, `<td>running</td>\s*<td>[^<]+UTC</td>\s*<td>—</td>`, page)

	// A double click, or the same form sent again, while the run is open.
	role, text = flashOf(b.act(path, "redrive_import", csrf))
	assert.Equal(t, "alert", role)
	assert.Equal(t, "workflow "+apply+" is still running (run "+run.RunID+"): wait for it to close, or terminate that run in the Temporal UI, then re-drive", text)
	assert.Len(t, redriveEntries(t, db, imp.ID), 1, "nothing audited")
	assert.Len(t, runsOf(t, c, apply), 1, "no second run")
	b.header.Set("Accept-Language", "pl")
	role, text = flashOf(b.act(path, "redrive_import", csrf))
	assert.Equal(t, "alert", role)
	assert.Contains(t, text, "wciąż trwa (uruchomienie "+run.RunID+")")
	b.header.Del("Accept-Language")

	// Terminated, the run says so and why.
	require.NoError(t, c.TerminateWorkflow(context.Background(), apply, run.RunID, "stuck on a bad deploy, terminated by on-call"))
	page = b.page(path)
	assert.Regexp(t, `<td>terminated</td>\s*<td>[^<]+UTC</td>\s*<td>[^<]+UTC</td>\s*<td>stuck on a bad deploy, terminated by on-call</td>`, page)

	assert.Equal(t, http.StatusNotFound, b.post(path+"/delete_everything", url.Values{"csrf": {csrf}}).StatusCode)
	assert.Equal(t, http.StatusNotFound, b.post("/attention/import_stuck/"+uuid.NewString()+"/redrive_import", url.Values{"csrf": {csrf}}).StatusCode)
}

// An action the record's state does not allow is refused with the
// domain's message, in the reader's language, and changes nothing.
func TestRecordPageRefusesWhatTheStateDoesNotAllow(t *testing.T) {
	db := testenv.DB(t)
	o := attentiontest.NewOrg(t, db)
	r := o.Report(t)
	require.NoError(t, reports.FinishReport(t.Context(), db, o.ID, r.ID, "org/report.xlsx", 0, nil))
	b := signedIn(t, support.Deps{}, uniqueName("Remy"))
	path := "/attention/report_failed/" + r.ID.String()

	page := b.page(path)
	assert.Contains(t, page, `<dd id="status"><code>completed</code></dd>`)
	assert.Contains(t, page, `<dd id="reason">It needs nobody now.</dd>`)
	assert.Contains(t, page, "Its state allows no action.")
	assert.NotContains(t, page, "<button type=\"submit\" id=\"action-")

	csrf := b.csrf()
	role, text := flashOf(b.act(path, "retry_report", csrf))
	assert.Equal(t, "alert", role)
	assert.Equal(t, "report "+r.ID.String()+" is completed, nothing to retry: its file has been built", text)
	b.header.Set("Accept-Language", "pl")
	_, text = flashOf(b.act(path, "retry_report", csrf))
	assert.Contains(t, text, "plik raportu został zbudowany")

	var audited int64
	require.NoError(t, db.Model(&domain.AuditEntry{}).Where("record_id = ? AND operation = ?", r.ID, "admin.reports.retry").Count(&audited).Error)
	assert.Zero(t, audited)
}

// Records that do not exist, or kinds that do not, are not found.
func TestRecordPageNotFound(t *testing.T) {
	b := signedIn(t, support.Deps{}, uniqueName("Nemo"))
	for _, path := range []string{
		"/attention/import_stuck/" + uuid.NewString(), "/attention/nothing/" + uuid.NewString(), "/attention/import_stuck/42",
	} {
		res := b.get(path)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, path)
		assert.Contains(t, body(t, res), "There is no such record.", path)
	}
}

// Without Temporal the page still shows the record, and says why its
// runs are missing.
func TestRecordPageWithoutTemporal(t *testing.T) {
	db := testenv.DB(t)
	o := attentiontest.NewOrg(t, db)
	imp := o.FailedImport(t)
	gone, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:" + testenv.FreePort(), Namespace: "default"})
	require.NoError(t, err)
	t.Cleanup(gone.Close)
	b := signedIn(t, support.Deps{Temporal: gone}, uniqueName("Offline"))

	start := time.Now()
	page := b.page("/attention/import_failed/" + imp.ID.String())
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Contains(t, page, "Unknown columns: colour.")
	assert.Contains(t, page, `<p id="runs-error" class="error">Temporal could not be reached, so the runs are not shown:`)
	assert.Contains(t, page, `<button type="submit" id="action-redrive_import"`)
}
