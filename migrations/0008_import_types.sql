-- Imports of every type: the upload's column mapping and sheet, the
-- organization's code mappings, the import as an audit actor, and a
-- wake-up for the workflow-start relay.

-- mapping: the upload's map of file column names to field names ({} when
-- the file's header already names the fields). sheet: the XLSX sheet to
-- read ('' for the first one).
ALTER TABLE imports
    ADD COLUMN mapping jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN sheet   text  NOT NULL DEFAULT '';

-- The organization's own codes for dictionary codes (for example its
-- material names for material codes), written by code_mappings imports and
-- read by the imports that follow. A source code matches whatever its case.
CREATE TABLE code_mappings (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    dictionary      text NOT NULL CHECK (dictionary IN
        ('materials', 'countries', 'economic_roles', 'document_types', 'packaging_categories', 'packaging_formats')),
    source_code     text NOT NULL,
    code            text NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);
CREATE UNIQUE INDEX code_mappings_source_idx ON code_mappings (organization_id, dictionary, lower(source_code));

-- An import's apply acts as the import: its audit entries name it.
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_kind_check
    CHECK (actor_kind IN ('api_key', 'operator', 'system', 'import'));

-- The relay polls for recorded starts every second; a notification at
-- commit of a new start wakes it at once, so an ERP's small import is not
-- delayed by the poll. Polling stays as the fallback for a missed wake-up.
CREATE FUNCTION notify_workflow_starts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('workflow_starts', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER workflow_starts_notify AFTER INSERT ON workflow_starts
    FOR EACH STATEMENT EXECUTE FUNCTION notify_workflow_starts();
