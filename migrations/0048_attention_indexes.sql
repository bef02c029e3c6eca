-- Support staff's list of work that needs a person (domain/attention)
-- reads, newest first, the few rows of each table that are in a state
-- needing one: each kind takes its page from a partial index holding
-- exactly those rows, so a page costs the same however many healthy rows
-- the tables hold. Queued and applying imports are few at any time; their
-- index finds them without reading the rest.
CREATE INDEX imports_waiting_idx ON imports (organization_id) WHERE status IN ('queued', 'applying');
CREATE INDEX imports_failed_idx ON imports (updated_at, id) WHERE status = 'failed';
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (completed_at, id) WHERE status = 'failed';
CREATE INDEX document_versions_rejected_idx ON document_versions (processed_at, id)
    WHERE processing_status IN ('quarantined', 'failed');
CREATE INDEX supplier_requests_mail_failed_idx ON supplier_requests (updated_at, id) WHERE delivery_status = 'failed';
CREATE INDEX reports_failed_idx ON reports (completed_at, id) WHERE status = 'failed';
CREATE INDEX bdo_reports_export_failed_idx ON bdo_reports (export_failed_at, id) WHERE export_status = 'failed';
-- A record's history: its audit entries, newest first.
CREATE INDEX audit_log_record_idx ON audit_log (record_id, occurred_at) WHERE record_id IS NOT NULL;
