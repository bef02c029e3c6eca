// Package attentiontest records work that needs a person, through the
// areas' own commands where they have one: one record of every attention
// kind in an organization of its own, each beside healthy records of the
// same table, for the tests of domain/attention, of the operator's
// actions and of the support console.
package attentiontest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/attention"
	"ppwr/domain/bdo"
	"ppwr/domain/imports"
	"ppwr/domain/reports"
	"ppwr/domain/webhooks"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Org is an organization of a test's own.
type Org struct {
	DB   *gorm.DB
	ID   uuid.UUID
	Name string
	// Listed is the record of each kind that needs a person (Seed).
	Listed map[attention.Kind]uuid.UUID
	// Healthy names records beside them, in states that need nobody.
	Healthy map[string]uuid.UUID
}

// NewOrg is a new organization with nothing in it.
func NewOrg(t testing.TB, db *gorm.DB) *Org {
	t.Helper()
	name := "Attention " + uuid.NewString()[:8]
	org, err := accounts.CreateOrganization(context.Background(), db, name, "attention-"+uuid.NewString())
	require.NoError(t, err)
	return &Org{DB: db, ID: org.ID, Name: name, Listed: map[attention.Kind]uuid.UUID{}, Healthy: map[string]uuid.UUID{}}
}

// Seed is a new organization with one record of every kind and the
// healthy records Healthy names: a recent queued import, an old queued
// import whose start waits for the relay, a completed import, a
// succeeded delivery, a failed delivery to a disabled endpoint, an
// endpoint whose latest delivery succeeded, a version ready for review,
// a supplier request delivered and a cancelled one whose e-mail failed, a
// completed report, a ready BDO export and a start that failed once.
func Seed(t testing.TB, db *gorm.DB) *Org {
	t.Helper()
	o := NewOrg(t, db)
	o.Listed[attention.ImportStuck] = o.StuckImport(t, imports.ImportQueued).ID
	o.Listed[attention.ImportFailed] = o.FailedImport(t).ID
	o.Healthy["recent import"] = o.StuckImport(t, imports.ImportQueued, 0).ID
	waiting := o.Import(t)
	o.exec(t, `UPDATE imports SET updated_at = ?, progress_updated_at = ? WHERE id = ?`, o.ago(time.Hour), o.ago(time.Hour), waiting.ID)
	o.Healthy["import whose start waits"] = waiting.ID
	done := o.StuckImport(t, imports.ImportQueued)
	o.exec(t, `UPDATE imports SET status = ? WHERE id = ?`, imports.ImportCompletedStatus, done.ID)
	o.Healthy["completed import"] = done.ID

	active := o.Endpoint(t, "https://hooks.example.test/active")
	o.Listed[attention.DeliveryGaveUp] = o.Delivery(t, active.ID, webhooks.DeliveryFailed, "receiver answered 500").ID
	o.Healthy["succeeded delivery"] = o.Delivery(t, active.ID, webhooks.DeliverySucceeded, "").ID
	disabled := o.Endpoint(t, "https://hooks.example.test/disabled")
	o.exec(t, `UPDATE webhook_endpoints SET status = ? WHERE id = ?`, webhooks.EndpointDisabled, disabled.ID)
	o.Healthy["delivery to a disabled endpoint"] = o.Delivery(t, disabled.ID, webhooks.DeliveryFailed, "endpoint is disabled").ID
	failing := o.Endpoint(t, "https://hooks.example.test/failing")
	for range attention.FailingDeliveries {
		o.Delivery(t, failing.ID, webhooks.DeliveryPending, "receiver answered 503")
	}
	o.Listed[attention.EndpointFailing] = failing.ID
	recovered := o.Endpoint(t, "https://hooks.example.test/recovered")
	for range attention.FailingDeliveries - 1 {
		o.Delivery(t, recovered.ID, webhooks.DeliveryPending, "receiver answered 503")
	}
	o.Delivery(t, recovered.ID, webhooks.DeliverySucceeded, "")
	o.Healthy["endpoint that recovered"] = recovered.ID

	o.Listed[attention.DocumentRejected] = o.Version(t, "quarantined", "malware", "Eicar-Signature")
	o.Healthy["version to review"] = o.Version(t, "review_required", "", "")

	party := o.Party(t)
	o.Listed[attention.SupplierEmailFailed] = o.SupplierRequest(t, party, "sent", "failed", "550 mailbox unavailable")
	o.Healthy["delivered request"] = o.SupplierRequest(t, party, "sent", "sent", "")
	o.Healthy["cancelled request"] = o.SupplierRequest(t, party, "cancelled", "failed", "550 mailbox unavailable")

	o.Listed[attention.ReportFailed] = o.FailedReport(t).ID
	built := o.Report(t)
	require.NoError(t, reports.FinishReport(context.Background(), db, o.ID, built.ID, "org/report.xlsx", 0, nil))
	o.Healthy["completed report"] = built.ID
	o.Listed[attention.BDOExportFailed] = o.FailedBDOExport(t).ID
	rendered := o.BDOReport(t)
	require.NoError(t, bdo.FinishBDOExport(context.Background(), db, o.ID, rendered.ID, "org/r.xlsx", "org/r.json", nil))
	o.Healthy["ready BDO export"] = rendered.ID

	o.Listed[attention.StartFailing] = o.Start(t, attention.StartAttempts).ID
	o.Healthy["start that failed once"] = o.Start(t, 1).ID
	return o
}

func (o *Org) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	require.NoError(t, o.DB.Exec(sql, args...).Error)
}

// ago is the time d before now.
func (o *Org) ago(d time.Duration) time.Time { return time.Now().UTC().Add(-d) }

// Unit is a unit of work of the system acting in the organization.
func (o *Org) Unit() *work.Unit {
	return work.New(context.Background(), o.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: o.ID, Reference: "attentiontest"})
}

// commit commits w with an audit entry of operation.
func commit(t testing.TB, w *work.Unit, operation string) {
	t.Helper()
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: operation}))
}

// started marks the recorded starts of the record id made, as the relay
// marks them, so that nothing waits for the relay.
func (o *Org) started(t testing.TB, id uuid.UUID) {
	o.exec(t, `UPDATE workflow_starts SET started_at = now(), run_id = 'attentiontest', attempts = attempts + 1
		WHERE resource_id = ? AND started_at IS NULL`, id.String())
}

// Import is a queued catalogue import of an empty file, uploaded with
// operation test.upload; the start of its preview waits for the relay.
func (o *Org) Import(t testing.TB) *imports.Import {
	t.Helper()
	w := o.Unit()
	imp, err := imports.CreateImport(w, domain.NewID(), imports.ImportUpload{Type: imports.ImportCatalog, FileName: "items.csv", Size: 1})
	require.NoError(t, err)
	commit(t, w, "test.upload")
	return imp
}

// StuckImport is an import in status (queued or applying) whose start
// was made and that has not moved since: for StuckAfter and a minute, or
// for idle, when given.
func (o *Org) StuckImport(t testing.TB, status string, idle ...time.Duration) *imports.Import {
	t.Helper()
	imp := o.Import(t)
	o.started(t, imp.ID)
	since := o.ago(attention.StuckAfter + time.Minute)
	if len(idle) > 0 {
		since = o.ago(idle[0])
	}
	o.exec(t, `UPDATE imports SET status = ?, updated_at = ?, progress_updated_at = ? WHERE id = ?`, status, since, since, imp.ID)
	imp.Status = status
	return imp
}

// FailedImport is an import whose file its preview could not read.
func (o *Org) FailedImport(t testing.TB) *imports.Import {
	t.Helper()
	imp := o.Import(t)
	o.started(t, imp.ID)
	w := o.Unit()
	require.NoError(t, imports.FailImport(w, imp, input.FieldError{Key: "error.import_unknown_columns", Args: []any{"colour", "internalCode, name"}}))
	commit(t, w, "test.fail")
	return imp
}

// Endpoint is an active endpoint at url, subscribed to every event.
func (o *Org) Endpoint(t testing.TB, url string) *webhooks.WebhookEndpoint {
	t.Helper()
	e, err := webhooks.OperatorAddEndpoint(context.Background(), o.DB, webhooks.NewEndpoint{
		OrganizationID: o.ID, URL: url, Events: []string{webhooks.AllEvents}, AllowHTTPLoopback: true})
	require.NoError(t, err)
	return e
}

// Delivery is a delivery of a new event to the endpoint, in status, with
// one attempt that failed with lastError, or succeeded without one; a
// failed delivery was given up a minute ago.
func (o *Org) Delivery(t testing.TB, endpoint uuid.UUID, status, lastError string) *webhooks.WebhookDelivery {
	t.Helper()
	event := domain.NewID()
	o.exec(t, `INSERT INTO events (id, organization_id, type, body, created_at, relayed_at) VALUES (?, ?, 'import.failed', ?, now(), now())`,
		event, o.ID, `{"id":"`+event.String()+`","type":"import.failed"}`)
	d := &webhooks.WebhookDelivery{ID: domain.NewID(), EventID: event, EndpointID: endpoint, Status: status, Attempts: 1, LastError: lastError,
		CreatedAt: o.ago(2 * time.Minute)}
	if status != webhooks.DeliveryPending {
		at := o.ago(time.Minute)
		d.CompletedAt = &at
	}
	require.NoError(t, o.DB.Create(d).Error)
	code := 200
	if lastError != "" {
		code = 500
	}
	require.NoError(t, o.DB.Create(&webhooks.WebhookAttempt{ID: domain.NewID(), DeliveryID: d.ID, AttemptedAt: o.ago(time.Minute),
		StatusCode: &code, DurationMs: 20, Error: lastError}).Error)
	return d
}

// Version is the first version of a new document, processed into status
// for reason (its detail as detail).
func (o *Org) Version(t testing.TB, status, reason, detail string) uuid.UUID {
	t.Helper()
	doc, version := domain.NewID(), domain.NewID()
	o.exec(t, `INSERT INTO documents (id, organization_id, document_type, title, version_count) VALUES (?, ?, 'declaration_of_conformity', 'Declaration', 1)`,
		doc, o.ID)
	o.exec(t, `INSERT INTO document_versions (id, organization_id, document_id, version, file_name, object_key, size_bytes, sha256,
			processing_status, processing_reason, processing_detail, processed_at, review_status)
		VALUES (?, ?, ?, 1, 'declaration.pdf', 'org/declaration.pdf', 68, 'abc', ?, NULLIF(?, ''), NULLIF(?, ''), now(), 'unreviewed')`,
		version, o.ID, doc, status, reason, detail)
	return version
}

// Party is a supplier of the organization.
func (o *Org) Party(t testing.TB) uuid.UUID {
	t.Helper()
	id := domain.NewID()
	o.exec(t, `INSERT INTO parties (id, organization_id, name, roles, country_code) VALUES (?, ?, 'Supplier', '{supplier}', 'PL')`, id, o.ID)
	return id
}

// SupplierRequest is a request to the party in status, sent once, whose
// e-mail is in delivery with the error, if any.
func (o *Org) SupplierRequest(t testing.TB, party uuid.UUID, status, delivery, smtpError string) uuid.UUID {
	t.Helper()
	id := domain.NewID()
	o.exec(t, `INSERT INTO supplier_requests (id, organization_id, party_id, recipients, language, due_on, status, delivery_status,
			delivery_error, reply_token, line_count, send_count, sent_at)
		VALUES (?, ?, ?, '{supplier@example.test}', 'en', current_date + 14, ?, ?, NULLIF(?, ''), ?, 1, 1, now())`,
		id, o.ID, party, status, delivery, smtpError, uuid.NewString())
	return id
}

// created is the record create makes in a unit of the organization,
// committed with an audit entry of operation, the start it recorded made.
func created[T any](t testing.TB, o *Org, operation string, create func(*work.Unit) (*T, error), id func(*T) uuid.UUID) *T {
	t.Helper()
	w := o.Unit()
	rec, err := create(w)
	require.NoError(t, err)
	commit(t, w, operation)
	o.started(t, id(rec))
	return rec
}

// Report is a queued evidence-coverage report whose start was made.
func (o *Org) Report(t testing.TB) *reports.Report {
	t.Helper()
	return created(t, o, "test.report", func(w *work.Unit) (*reports.Report, error) {
		return reports.CreateReport(w, &reports.ReportCreate{Kind: input.Opt[string]{Sent: true, Value: reports.ReportEvidenceCoverage}})
	}, func(r *reports.Report) uuid.UUID { return r.ID })
}

// FailedReport is a report whose build gave up.
func (o *Org) FailedReport(t testing.TB) *reports.Report {
	t.Helper()
	r := o.Report(t)
	require.NoError(t, reports.FinishReport(context.Background(), o.DB, o.ID, r.ID, "", 0, errors.New("storage: connection refused")))
	return r
}

// BDOReport is a BDO report of 2025 whose exports are rendering, their
// start made.
func (o *Org) BDOReport(t testing.TB) *bdo.BDOReport {
	t.Helper()
	return created(t, o, "test.bdo", func(w *work.Unit) (*bdo.BDOReport, error) {
		return bdo.CreateBDOReport(w, &bdo.BDOReportCreate{Year: input.Opt[int]{Sent: true, Value: 2025}})
	}, func(r *bdo.BDOReport) uuid.UUID { return r.ID })
}

// FailedBDOExport is a BDO report whose exports could not be rendered.
func (o *Org) FailedBDOExport(t testing.TB) *bdo.BDOReport {
	t.Helper()
	r := o.BDOReport(t)
	require.NoError(t, bdo.FinishBDOExport(context.Background(), o.DB, o.ID, r.ID, "", "", errors.New("render: disk full")))
	return r
}

// Start is a recorded start of a workflow no worker knows, for a record of
// the organization, that the relay failed to make attempts times.
func (o *Org) Start(t testing.TB, attempts int) *domain.WorkflowStart {
	t.Helper()
	resource := domain.NewID()
	s, err := domain.NewWorkflowStart("attentiontest/"+resource.String(), "AttentionTest", o.ID.String(), resource.String(), nil)
	require.NoError(t, err)
	s.Attempts, s.LastError = attempts, "temporal: start attentiontest/"+resource.String()+": context deadline exceeded"
	require.NoError(t, o.DB.Create(s).Error)
	return s
}
