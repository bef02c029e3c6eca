package attention

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"

	"ppwr/domain"
	"ppwr/domain/bdo"
	"ppwr/domain/documents"
	"ppwr/domain/imports"
	"ppwr/domain/reports"
	"ppwr/domain/suppliers"
	"ppwr/domain/webhooks"
	"ppwr/internal/i18n"
)

// Kind is a kind of work that needs a person.
type Kind string

// The kinds, each declared in sources.
const (
	// ImportStuck is an import queued or applying whose progress has not
	// moved for StuckAfter, with no start of its workflow waiting.
	ImportStuck Kind = "import_stuck"
	// ImportFailed is an import whose file could not be read.
	ImportFailed Kind = "import_failed"
	// DeliveryGaveUp is a webhook delivery to an active endpoint that its
	// run gave up.
	DeliveryGaveUp Kind = "webhook_delivery_failed"
	// EndpointFailing is an active webhook endpoint whose last
	// FailingDeliveries attempted deliveries all failed.
	EndpointFailing Kind = "webhook_endpoint_failing"
	// DocumentRejected is a document version its processing quarantined
	// (malware, too large to scan) or failed.
	DocumentRejected Kind = "document_failed"
	// SupplierEmailFailed is a sent supplier request whose e-mail could
	// not be delivered.
	SupplierEmailFailed Kind = "supplier_email_failed"
	// ReportFailed is a report whose file could not be built.
	ReportFailed Kind = "report_failed"
	// BDOExportFailed is a BDO report whose exports could not be rendered.
	BDOExportFailed Kind = "bdo_export_failed"
	// StartFailing is a recorded workflow start the relay tried
	// StartAttempts times or more and could not make.
	StartFailing Kind = "workflow_start_failing"
)

// Thresholds of the kinds.
const (
	// StuckAfter is how long an import's progress may stand still before
	// it is stuck: a working run moves it every second.
	StuckAfter = 15 * time.Minute
	// FailingDeliveries is how many of an endpoint's latest attempted
	// deliveries must all be failing for it to keep failing: one
	// failure is a hiccup, a row of them a receiver that is down.
	FailingDeliveries = 3
	// StartAttempts is how many failed attempts make a recorded start one
	// the relay cannot make: the relay tries every pass, so a start that
	// failed once is usually a Temporal restart.
	StartAttempts = 3
)

// Statuses of a recorded workflow start, which keeps none of its own.
const (
	StartWaiting = "not_started"
	StartMade    = "started"
)

// Label is the key of the message naming the kind, as a filter shows it.
func (k Kind) Label() string { return "attention.kind." + string(k) }

// Kinds are every kind, in the order a filter lists them.
var Kinds = func() []Kind {
	out := make([]Kind, len(sources))
	for i, s := range sources {
		out[i] = s.kind
	}
	return out
}()

// ParseKind is the kind named s.
func ParseKind(s string) (Kind, error) {
	if _, ok := sourceOf(Kind(s)); !ok {
		return "", fmt.Errorf("attention: unknown kind %q", s)
	}
	return Kind(s), nil
}

// Reason says why an item needs a person: a message key with its
// arguments where the record keeps one, else the error it stored, as it
// was stored (errors of SMTP servers, receivers and Temporal are in
// English).
type Reason struct {
	Key   string
	Args  []any
	Error string
}

// Text is the reason in l.
func (r Reason) Text(l i18n.Locale) string {
	if r.Key == "" {
		return r.Error
	}
	return i18n.T(l, r.Key, r.Args...)
}

// row is an item as its kind's query selects it: the columns every
// source selects, detail_key, detail_args, detail and n being what its
// reason is made of and ref what names its workflow.
type row struct {
	Kind             Kind
	ID               uuid.UUID
	OrganizationID   *uuid.UUID
	OrganizationName *string
	Status           string
	DetailKey        string
	DetailArgs       datatypes.JSON
	Detail           string
	N                int
	At               time.Time
	Ref              datatypes.JSON
}

// source is one kind: the query that finds its items and how an item
// says why and names its workflow.
type source struct {
	kind Kind
	// record is the table the kind's ids are rows of.
	record *recordType
	// query selects the kind's items, with exactly the columns of row
	// but kind and organization_name, in that order; List pages over it
	// by at and id.
	query    string
	reason   func(r *row) (Reason, error)
	workflow func(r *row) (string, error)
}

// sources are the kinds, in the order Kinds lists them.
var sources = []source{
	{kind: ImportStuck, record: importRecord, query: `SELECT i.id, i.organization_id, i.status, ''::text, NULL::jsonb, ''::text, 0,
			greatest(i.updated_at, i.progress_updated_at) AS at, jsonb_build_object('import_id', i.id)
		FROM imports i
		WHERE i.status IN (@import_queued, @import_applying) AND greatest(i.updated_at, i.progress_updated_at) < @stuck_since
			AND NOT EXISTS (SELECT 1 FROM workflow_starts s WHERE s.started_at IS NULL AND s.resource_id = i.id::text)`,
		reason: func(r *row) (Reason, error) {
			if r.Status == imports.ImportApplying {
				return Reason{Key: "attention.import_stuck_apply"}, nil
			}
			return Reason{Key: "attention.import_stuck_preview"}, nil
		},
		workflow: func(r *row) (string, error) {
			if r.Status == imports.ImportApplying {
				return idOf(imports.ApplyWorkflow)(r)
			}
			return idOf(imports.PreviewWorkflow)(r)
		}},
	{kind: ImportFailed, record: importRecord, query: `SELECT i.id, i.organization_id, i.status, i.error_key, i.error_args, ''::text, 0,
			i.updated_at, jsonb_build_object('import_id', i.id)
		FROM imports i WHERE i.status = @import_failed`,
		reason: func(r *row) (Reason, error) {
			var args []any
			if err := json.Unmarshal(r.DetailArgs, &args); err != nil {
				return Reason{}, fmt.Errorf("attention: import %s: stored error_args: %w", r.ID, err)
			}
			return Reason{Key: r.DetailKey, Args: args}, nil
		},
		workflow: idOf(imports.PreviewWorkflow)},
	{kind: DeliveryGaveUp, record: deliveryRecord, query: `SELECT d.id, e.organization_id, d.status, ''::text, NULL::jsonb, d.last_error, d.attempts,
			d.completed_at, jsonb_build_object('event_id', d.event_id, 'endpoint_id', d.endpoint_id)
		FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
		WHERE d.status = @delivery_failed AND e.status = @endpoint_active`,
		reason: storedError, workflow: idOf(webhooks.DeliveryWorkflow)},
	// The latest FailingDeliveries attempted deliveries of each active
	// endpoint, read backwards from the end of its index by id (UUIDv7,
	// so creation order); "when" is the last attempt of any of them.
	{kind: EndpointFailing, record: endpointRecord, query: `SELECT e.id, e.organization_id, e.status, ''::text, NULL::jsonb, f.last_error, f.n,
			f.at, NULL::jsonb
		FROM webhook_endpoints e CROSS JOIN LATERAL (
			SELECT count(*)::int AS n, (array_agg(d.last_error ORDER BY d.id DESC))[1] AS last_error,
				COALESCE(max(d.last_at), max(d.created_at)) AS at
			FROM (SELECT d.id, d.last_error, d.created_at,
					(SELECT max(a.attempted_at) FROM webhook_attempts a WHERE a.delivery_id = d.id) AS last_at
				FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.attempts > 0
				ORDER BY d.id DESC LIMIT @failing_deliveries) d
			HAVING count(*) = @failing_deliveries AND bool_and(d.last_error <> '')) f
		WHERE e.status = @endpoint_active`,
		reason: func(r *row) (Reason, error) {
			return Reason{Key: "attention.endpoint_failing", Args: []any{r.N, r.Detail}}, nil
		},
		workflow: none},
	{kind: DocumentRejected, record: documentRecord, query: `SELECT v.id, v.organization_id, v.processing_status, COALESCE(v.processing_reason, ''),
			NULL::jsonb, COALESCE(v.processing_detail, ''), 0, v.processed_at, jsonb_build_object('version_id', v.id)
		FROM document_versions v WHERE v.processing_status IN (@document_quarantined, @document_failed)`,
		// As the API words a version's processing_reason.
		reason: func(r *row) (Reason, error) {
			return Reason{Key: "processing." + r.DetailKey, Args: []any{r.Detail}}, nil
		},
		workflow: idOf(documents.ProcessingWorkflow)},
	{kind: SupplierEmailFailed, record: supplierRecord, query: `SELECT r.id, r.organization_id, r.delivery_status, ''::text, NULL::jsonb,
			COALESCE(r.delivery_error, ''), r.send_count, r.updated_at, jsonb_build_object('request_id', r.id, 'send', r.send_count)
		FROM supplier_requests r WHERE r.delivery_status = @mail_failed AND r.status = @request_sent`,
		reason: storedError, workflow: idOf(suppliers.RequestSendWorkflow)},
	{kind: ReportFailed, record: reportRecord, query: `SELECT r.id, r.organization_id, r.status, ''::text, NULL::jsonb, COALESCE(r.error, ''), 0,
			r.completed_at, jsonb_build_object('report_id', r.id)
		FROM reports r WHERE r.status = @report_failed`,
		reason: storedError, workflow: idOf(reports.ReportWorkflow)},
	{kind: BDOExportFailed, record: bdoRecord, query: `SELECT b.id, b.organization_id, b.export_status, ''::text, NULL::jsonb,
			COALESCE(b.export_error, ''), 0, b.export_failed_at, jsonb_build_object('report_id', b.id)
		FROM bdo_reports b WHERE b.export_status = @export_failed`,
		reason: storedError, workflow: idOf(bdo.BDOReportWorkflow)},
	// A start of no organization (housekeeping) finds none to join.
	{kind: StartFailing, record: startRecord, query: `SELECT s.id, o.id, CAST(@start_waiting AS text), ''::text, NULL::jsonb, s.last_error, s.attempts,
			s.created_at, jsonb_build_object('workflow_id', s.workflow_id)
		FROM workflow_starts s LEFT JOIN organizations o ON o.id::text = s.organization_id
		WHERE s.started_at IS NULL AND s.attempts >= @start_attempts`,
		reason: func(r *row) (Reason, error) {
			return Reason{Key: "attention.start_failing", Args: []any{r.N, r.Detail}}, nil
		},
		workflow: func(r *row) (string, error) {
			var ref struct {
				WorkflowID string `json:"workflow_id"`
			}
			return ref.WorkflowID, decodeRef(r, &ref)
		}},
}

// queryArgs are the statuses and thresholds the sources' queries name,
// given as parameters so each is written once, in its area.
func queryArgs(now time.Time) map[string]any {
	return map[string]any{
		"import_queued": imports.ImportQueued, "import_applying": imports.ImportApplying, "import_failed": imports.ImportFailedStatus,
		"stuck_since":     now.Add(-StuckAfter),
		"delivery_failed": webhooks.DeliveryFailed, "endpoint_active": webhooks.EndpointActive, "failing_deliveries": FailingDeliveries,
		"document_quarantined": documents.ProcessingQuarantined, "document_failed": documents.ProcessingFailed,
		"mail_failed": suppliers.MailFailed, "request_sent": suppliers.RequestSent,
		"report_failed": reports.ReportFailed, "export_failed": bdo.ExportFailed,
		"start_waiting": StartWaiting, "start_attempts": StartAttempts,
	}
}

func sourceOf(k Kind) (*source, bool) {
	for i := range sources {
		if sources[i].kind == k {
			return &sources[i], true
		}
	}
	return nil, false
}

// storedError is the reason of a record that keeps its error as text.
func storedError(r *row) (Reason, error) { return Reason{Error: r.Detail}, nil }

// none is the workflow of a record that has none.
func none(*row) (string, error) { return "", nil }

// idOf names the run of wf that works on the item, from its ref, which
// holds the fields of wf's input that its id is made of.
func idOf[In domain.WorkflowInput](wf domain.Workflow[In]) func(r *row) (string, error) {
	return func(r *row) (string, error) {
		var in In
		if err := decodeRef(r, &in); err != nil {
			return "", err
		}
		return wf.ID(in), nil
	}
}

func decodeRef(r *row, out any) error {
	if err := json.Unmarshal(r.Ref, out); err != nil {
		return fmt.Errorf("attention: %s %s: ref: %w", r.Kind, r.ID, err)
	}
	return nil
}
