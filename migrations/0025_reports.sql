-- Reports: a file built by the workflow report/<id> into the object
-- store from the kind and parameters of its request; clients poll the
-- status and download the file once completed.
CREATE TABLE reports (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    kind             text NOT NULL,
    format           text NOT NULL CHECK (format IN ('csv', 'xlsx')),
    parameters       jsonb NOT NULL,
    status           text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
    row_count        integer,
    object_key       text,
    error            text,
    created_by       uuid REFERENCES users (id),
    created_at       timestamptz NOT NULL,
    completed_at     timestamptz
);
CREATE INDEX reports_org_idx ON reports (organization_id, id);
