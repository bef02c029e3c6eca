-- PPWR technical register entries: one table for every register, the
-- register's typed values kept as JSON exactly as its declaration
-- (internal/register) validated and completed them. Entries are immutable
-- once created, except for their single review decision and the link to
-- the entry that supersedes them.
CREATE TABLE ppwr_register_entries (
    id                uuid PRIMARY KEY,
    organization_id   uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id   uuid NOT NULL REFERENCES catalog_items (id),
    register          text NOT NULL,
    catalog_revision  integer NOT NULL,
    data_version_id   uuid NOT NULL REFERENCES catalog_item_data_versions (id),
    components        jsonb NOT NULL DEFAULT '[]',
    market_scenarios  jsonb NOT NULL DEFAULT '[]',
    rule_set          text,
    rule_set_version  text,
    "values"          jsonb NOT NULL,
    method            text NOT NULL,
    method_reference  text,
    -- [{"kind": "document_version"|"evidence_proposal", "id": uuid, "field": path|null}]
    evidence          jsonb NOT NULL DEFAULT '[]',
    valid_from        date NOT NULL,
    valid_until       date CHECK (valid_until >= valid_from),
    status            text NOT NULL CHECK (status IN ('active', 'superseded')),
    supersedes        uuid REFERENCES ppwr_register_entries (id),
    superseded_by     uuid REFERENCES ppwr_register_entries (id),
    review_status     text NOT NULL CHECK (review_status IN ('not_applicable', 'unreviewed', 'accepted', 'rejected', 'needs_changes')),
    review_reason     text,
    reviewed_by       uuid REFERENCES users (id),
    reviewed_at       timestamptz,
    revision          integer NOT NULL DEFAULT 1,
    created_by        uuid REFERENCES users (id),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'superseded') = (superseded_by IS NOT NULL)),
    CHECK ((review_status IN ('not_applicable', 'unreviewed')) = (reviewed_at IS NULL))
);
CREATE INDEX ppwr_register_entries_item_idx ON ppwr_register_entries (organization_id, catalog_item_id, register, id);
-- An entry is corrected once: a second correction supersedes the first.
CREATE UNIQUE INDEX ppwr_register_entries_supersedes_key ON ppwr_register_entries (supersedes) WHERE supersedes IS NOT NULL;
