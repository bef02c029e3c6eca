-- Imports: an uploaded file, its preview (one row per input row with the
-- planned change) and its apply (the change each row made). The file
-- itself is in the object store under object_key.
CREATE TABLE imports (
    -- UUIDv7, so id order is upload order.
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    type            text NOT NULL,
    status          text NOT NULL CHECK (status IN ('queued', 'ready', 'failed', 'applying', 'completed', 'completed_with_errors')),
    file_name       text NOT NULL,
    size_bytes      bigint NOT NULL,
    object_key      text NOT NULL,
    -- Rows per outcome, set when the preview is ready and again at the end.
    create_count    integer NOT NULL DEFAULT 0,
    update_count    integer NOT NULL DEFAULT 0,
    unchanged_count integer NOT NULL DEFAULT 0,
    invalid_count   integer NOT NULL DEFAULT 0,
    -- Why the file could not be read (status failed): a message key of
    -- the i18n catalogues and its arguments, localized when answered.
    error_key       text NOT NULL DEFAULT '',
    error_args      jsonb NOT NULL DEFAULT '[]',
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    ready_at        timestamptz,
    completed_at    timestamptz
);
CREATE INDEX imports_org_idx ON imports (organization_id, id);

CREATE TABLE import_rows (
    -- UUIDv7 generated in row order, so id order is row order.
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    import_id       uuid NOT NULL REFERENCES imports (id),
    -- 1-based number of the data row (the header is not counted).
    number          integer NOT NULL,
    -- The row's cells keyed by field name, as read.
    input           jsonb NOT NULL,
    -- Field errors: [{field, key, args}], localized when answered.
    errors          jsonb NOT NULL DEFAULT '[]',
    outcome         text NOT NULL CHECK (outcome IN ('create', 'update', 'unchanged', 'invalid')),
    -- The planned change: the fields of a create, or the diff of an update.
    planned         jsonb,
    -- What applying the row changed: item id and new revision.
    applied         jsonb,
    UNIQUE (import_id, number)
);
CREATE INDEX import_rows_import_idx ON import_rows (import_id, id);
