package attention_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/attention"
	"ppwr/domain/attention/attentiontest"
	"ppwr/domain/imports"
	"ppwr/domain/webhooks"
	"ppwr/internal/i18n"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// all lists every item of f, a page at a time, checking that each page
// but the last is full and that the pages are newest first throughout.
func all(t *testing.T, f attention.Filter) []attention.Item {
	t.Helper()
	var items []attention.Item
	for {
		page, err := attention.List(context.Background(), testenv.DB(t), f)
		require.NoError(t, err)
		items = append(items, page.Items...)
		if page.Next == nil {
			break
		}
		require.Len(t, page.Items, f.Limit, "a page before the last is full")
		f.After = page.Next
	}
	require.True(t, slices.IsSortedFunc(items, func(a, b attention.Item) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		return slices.Compare(b.ID[:], a.ID[:])
	}), "newest first")
	return items
}

// byKind maps each item's kind to its id, failing on a kind listed twice.
func byKind(t *testing.T, items []attention.Item) map[attention.Kind]uuid.UUID {
	t.Helper()
	out := map[attention.Kind]uuid.UUID{}
	for _, it := range items {
		_, twice := out[it.Kind]
		require.False(t, twice, "%s listed twice", it.Kind)
		out[it.Kind] = it.ID
	}
	return out
}

// Every kind finds its record, and none of the healthy records beside
// them; each item says why in words and names its workflow.
func TestListFindsEveryKind(t *testing.T) {
	db := testenv.DB(t)
	o := attentiontest.Seed(t, db)
	items := all(t, attention.Filter{Organization: o.ID, Limit: attention.MaxLimit})
	assert.Equal(t, o.Listed, byKind(t, items))
	require.Len(t, o.Listed, len(attention.Kinds), "the fixture has every kind")

	reasons, workflows := map[attention.Kind]string{}, map[attention.Kind]string{}
	for _, it := range items {
		assert.Equal(t, o.ID, it.OrganizationID)
		assert.Equal(t, o.Name, it.OrganizationName)
		reasons[it.Kind], workflows[it.Kind] = it.Reason.Text(i18n.EN), it.WorkflowID
	}
	id := func(k attention.Kind) string { return o.Listed[k].String() }
	var start domain.WorkflowStart
	require.NoError(t, db.Take(&start, "id = ?", o.Listed[attention.StartFailing]).Error)
	var delivery webhooks.WebhookDelivery
	require.NoError(t, db.Take(&delivery, "id = ?", o.Listed[attention.DeliveryGaveUp]).Error)
	assert.Equal(t, map[attention.Kind]string{
		attention.ImportStuck:         "Waiting for its preview, which has not moved for a while: its run failed, timed out or was terminated, or no worker picks it up.",
		attention.ImportFailed:        "Unknown columns: colour. The columns are: internalCode, name.",
		attention.DeliveryGaveUp:      "receiver answered 500",
		attention.EndpointFailing:     "Its last 3 deliveries failed; the latest: receiver answered 503",
		attention.DocumentRejected:    "Malware was found: Eicar-Signature.",
		attention.SupplierEmailFailed: "550 mailbox unavailable",
		attention.ReportFailed:        "storage: connection refused",
		attention.BDOExportFailed:     "render: disk full",
		attention.StartFailing:        "The relay failed to start the workflow 3 times; the last error: " + start.LastError,
	}, reasons)
	assert.Equal(t, map[attention.Kind]string{
		attention.ImportStuck:         "import/" + id(attention.ImportStuck),
		attention.ImportFailed:        "import/" + id(attention.ImportFailed),
		attention.DeliveryGaveUp:      "webhook/" + delivery.EventID.String() + "/" + delivery.EndpointID.String(),
		attention.EndpointFailing:     "",
		attention.DocumentRejected:    "document-version/" + id(attention.DocumentRejected) + "/processing",
		attention.SupplierEmailFailed: "supplier-request/" + id(attention.SupplierEmailFailed) + "/send",
		attention.ReportFailed:        "report/" + id(attention.ReportFailed),
		attention.BDOExportFailed:     "bdo-report/" + id(attention.BDOExportFailed),
		attention.StartFailing:        start.WorkflowID,
	}, workflows)
	assert.Contains(t, reasons[attention.StartFailing], "context deadline exceeded")

	// An import stuck in its apply waits for the apply's run.
	applying := o.StuckImport(t, imports.ImportApplying)
	items = all(t, attention.Filter{Organization: o.ID, Kinds: []attention.Kind{attention.ImportStuck}, Limit: 10})
	require.Len(t, items, 2)
	assert.Equal(t, applying.ID, items[0].ID, "the apply stuck later comes first")
	assert.Equal(t, "import/"+applying.ID.String()+"/apply", items[0].WorkflowID)
	assert.Equal(t, imports.ImportApplying, items[0].Status)
	assert.Contains(t, items[0].Reason.Text(i18n.PL), "Czeka na zastosowanie")
}

// A filter by organization keeps its items only, a filter by kind its
// kinds, and pages follow each other without a gap or a repeat.
func TestListFiltersAndPages(t *testing.T) {
	db, ctx := testenv.DB(t), context.Background()
	one, two := attentiontest.Seed(t, db), attentiontest.Seed(t, db)

	assert.Equal(t, two.Listed, byKind(t, all(t, attention.Filter{Organization: two.ID, Limit: 4})), "paged by 4")
	paged := all(t, attention.Filter{Organization: one.ID, Limit: 2})
	whole := all(t, attention.Filter{Organization: one.ID, Limit: attention.MaxLimit})
	assert.Equal(t, whole, paged)
	assert.Len(t, whole, len(attention.Kinds))

	kinds := []attention.Kind{attention.ReportFailed, attention.BDOExportFailed}
	assert.Equal(t, map[attention.Kind]uuid.UUID{
		attention.ReportFailed: one.Listed[attention.ReportFailed], attention.BDOExportFailed: one.Listed[attention.BDOExportFailed],
	}, byKind(t, all(t, attention.Filter{Organization: one.ID, Kinds: kinds, Limit: 10})))
	var failed []uuid.UUID
	for _, it := range all(t, attention.Filter{Kinds: []attention.Kind{attention.ReportFailed}, Limit: attention.MaxLimit}) {
		assert.Equal(t, attention.ReportFailed, it.Kind)
		failed = append(failed, it.ID)
	}
	assert.Subset(t, failed, []uuid.UUID{one.Listed[attention.ReportFailed], two.Listed[attention.ReportFailed]}, "every organization's")

	c := whole[3].Cursor()
	parsed, err := attention.ParseCursor(c.String())
	require.NoError(t, err)
	assert.True(t, parsed.At.Equal(c.At))
	assert.Equal(t, c.ID, parsed.ID)
	page, err := attention.List(ctx, db, attention.Filter{Organization: one.ID, After: &parsed, Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, whole[4:5], page.Items, "the page after the cursor's item")

	for _, bad := range []attention.Filter{{Limit: attention.MaxLimit + 1}, {Limit: -1}, {Kinds: []attention.Kind{"nothing"}}} {
		_, err := attention.List(ctx, db, bad)
		assert.Error(t, err, "%+v", bad)
	}
	_, err = attention.ParseCursor("yesterday")
	assert.Error(t, err)
	_, err = attention.ParseKind("nothing")
	assert.Error(t, err)
	k, err := attention.ParseKind("report_failed")
	require.NoError(t, err)
	assert.Equal(t, attention.ReportFailed, k)
}

// actions are the names and explanations of a record's actions.
func actions(r *attention.Record) map[attention.ActionName]string {
	out := map[attention.ActionName]string{}
	for _, a := range r.Actions {
		out[a.Name] = a.Explanation
	}
	return out
}

func find(t *testing.T, kind attention.Kind, id uuid.UUID) *attention.Record {
	t.Helper()
	r, err := attention.Find(context.Background(), testenv.DB(t), kind, id)
	require.NoError(t, err, "%s %s", kind, id)
	assert.Equal(t, id, r.ID)
	return r
}

// Find reads a record whatever its state: it is listed while it needs a
// person, and its actions are those its state allows.
func TestFindAllowsWhatTheStateAllows(t *testing.T) {
	db := testenv.DB(t)
	o := attentiontest.Seed(t, db)
	for kind, want := range map[attention.Kind]map[attention.ActionName]string{
		attention.ImportStuck:         {attention.RedriveImport: "attention.action.redrive_preview"},
		attention.ImportFailed:        {attention.RedriveImport: "attention.action.redrive_failed"},
		attention.DeliveryGaveUp:      {attention.ResendDelivery: "attention.action.resend_delivery"},
		attention.EndpointFailing:     {},
		attention.DocumentRejected:    {},
		attention.SupplierEmailFailed: {},
		attention.ReportFailed:        {attention.RetryReport: "attention.action.retry_report"},
		attention.BDOExportFailed:     {attention.RetryBDOExport: "attention.action.retry_bdo_export"},
		attention.StartFailing:        {},
	} {
		r := find(t, kind, o.Listed[kind])
		assert.True(t, r.Listed, kind)
		assert.Equal(t, kind, r.Kind)
		assert.Equal(t, o.Name, r.OrganizationName, kind)
		assert.NotEmpty(t, r.Reason.Text(i18n.EN), kind)
		assert.NotEmpty(t, r.Status, kind)
		assert.Equal(t, want, actions(r), kind)
		for _, a := range r.Actions {
			assert.True(t, i18n.Has(i18n.EN, a.Explanation) && i18n.Has(i18n.PL, a.Explanation), a.Explanation)
		}
	}
	applying := o.StuckImport(t, imports.ImportApplying)
	r := find(t, attention.ImportStuck, applying.ID)
	assert.Equal(t, map[attention.ActionName]string{attention.RedriveImport: "attention.action.redrive_apply"}, actions(r))
	assert.Equal(t, []string{"import/" + applying.ID.String(), "import/" + applying.ID.String() + "/apply"}, r.WorkflowIDs)
	assert.Equal(t, "import/"+applying.ID.String()+"/apply", r.WorkflowID)
	require.NotNil(t, r.Progress)
	assert.Equal(t, domain.StageQueued, r.Progress.Stage)

	// Healthy records are found, not listed, and allow nothing; but for a
	// queued import that moves, a re-drive, which only Temporal refuses
	// while its run is open.
	recent := find(t, attention.ImportStuck, o.Healthy["recent import"])
	assert.False(t, recent.Listed)
	assert.Equal(t, map[attention.ActionName]string{attention.RedriveImport: "attention.action.redrive_preview"}, actions(recent))
	for kind, id := range map[attention.Kind]uuid.UUID{
		attention.ImportFailed:    o.Healthy["completed import"],
		attention.DeliveryGaveUp:  o.Healthy["succeeded delivery"],
		attention.ReportFailed:    o.Healthy["completed report"],
		attention.BDOExportFailed: o.Healthy["ready BDO export"],
	} {
		r := find(t, kind, id)
		assert.False(t, r.Listed, kind)
		assert.Equal(t, attention.Reason{}, r.Reason, kind)
		assert.True(t, r.At.IsZero(), kind)
		assert.Empty(t, r.Actions, kind)
		assert.Equal(t, o.Name, r.OrganizationName, kind)
		assert.NotEmpty(t, r.WorkflowID, kind)
	}
	// A delivery given up to an endpoint disabled since cannot be resent.
	assert.Empty(t, find(t, attention.DeliveryGaveUp, o.Healthy["delivery to a disabled endpoint"]).Actions)

	missing := uuid.New()
	_, err := attention.Find(context.Background(), db, attention.ReportFailed, missing)
	assert.ErrorIs(t, err, domain.ErrNotFound)
	assert.EqualError(t, err, "report "+missing.String()+" does not exist")
	_, err = attention.Find(context.Background(), db, "nothing", missing)
	assert.Error(t, err)
}

// A record's history is its audit entries, newest first, and the
// workflow ids it names join the record's own; a workflow start's
// history is its record's.
func TestFindReadsTheHistory(t *testing.T) {
	db, ctx := testenv.DB(t), context.Background()
	o := attentiontest.Seed(t, db)

	r := find(t, attention.ImportFailed, o.Listed[attention.ImportFailed])
	var ops []string
	for _, e := range r.History {
		ops = append(ops, e.Operation)
		assert.Equal(t, o.ID, e.OrganizationID)
	}
	assert.Equal(t, []string{"test.fail", "test.upload"}, ops, "newest first")
	assert.Equal(t, []string{"import/" + r.ID.String()}, r.WorkflowIDs)

	delivery := o.Listed[attention.DeliveryGaveUp]
	resend := "webhook/resent/" + uuid.NewString()
	require.NoError(t, domain.AuditOperator(ctx, db, o.ID, "admin.webhook.resend", "webhook_delivery", delivery, map[string]any{"workflow_id": resend}))
	r = find(t, attention.DeliveryGaveUp, delivery)
	require.Len(t, r.WorkflowIDs, 2)
	assert.Equal(t, r.WorkflowID, r.WorkflowIDs[0], "the delivery's own run first")
	assert.Equal(t, resend, r.WorkflowIDs[1])
	require.Len(t, r.History, 1)
	assert.Equal(t, domain.ActorOperator, r.History[0].ActorKind)

	start := o.Listed[attention.StartFailing]
	var s domain.WorkflowStart
	require.NoError(t, db.Take(&s, "id = ?", start).Error)
	require.NoError(t, domain.AuditOperator(ctx, db, o.ID, "test.record", "record", uuid.MustParse(s.ResourceID), map[string]any{}))
	r = find(t, attention.StartFailing, start)
	assert.Equal(t, attention.StartWaiting, r.Status)
	assert.Equal(t, []string{s.WorkflowID}, r.WorkflowIDs)
	require.Len(t, r.History, 1)
	assert.Equal(t, "test.record", r.History[0].Operation)
}

// Every kind has a label in both languages.
func TestKindsAreLabelled(t *testing.T) {
	require.NotEmpty(t, attention.Kinds)
	for _, k := range attention.Kinds {
		assert.True(t, i18n.Has(i18n.EN, k.Label()) && i18n.Has(i18n.PL, k.Label()), k)
	}
}

// Every action has a label in both languages, and is named by its name.
func TestActionsAreLabelled(t *testing.T) {
	assert.ElementsMatch(t, []attention.ActionName{
		attention.RedriveImport, attention.ResendDelivery, attention.RetryReport, attention.RetryBDOExport,
	}, attention.ActionNames)
	for _, a := range attention.ActionNames {
		assert.True(t, i18n.Has(i18n.EN, a.Label()) && i18n.Has(i18n.PL, a.Label()), a)
		parsed, err := attention.ParseAction(string(a))
		require.NoError(t, err)
		assert.Equal(t, a, parsed)
	}
	_, err := attention.ParseAction("delete_everything")
	assert.Error(t, err)
}
