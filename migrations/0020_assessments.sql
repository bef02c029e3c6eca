-- PPWR assessments: a frozen snapshot of the rules evaluated for one item
-- on one date, with the data version, register entries and evidence they
-- read. A later rule-set version or item change never rewrites one; it
-- only makes it stale.
CREATE TABLE assessments (
    id                uuid PRIMARY KEY,
    organization_id   uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id   uuid NOT NULL REFERENCES catalog_items (id),
    catalog_revision  integer NOT NULL,
    data_version_id   uuid NOT NULL REFERENCES catalog_item_data_versions (id),
    assessed_on       date NOT NULL,
    -- [{"code", "version"}] of the rule sets evaluated.
    rule_sets         jsonb NOT NULL,
    -- Market scenario ids in scope.
    markets           jsonb NOT NULL DEFAULT '[]',
    status            text NOT NULL CHECK (status IN ('pass', 'fail', 'incomplete')),
    results           jsonb NOT NULL,
    entries           jsonb NOT NULL DEFAULT '[]',
    evidence          jsonb NOT NULL DEFAULT '[]',
    -- Set by the item's refresh workflow when it found the assessment
    -- stale and announced it (assessment.stale); reads compute staleness
    -- themselves and never wait for it.
    stale_since       timestamptz,
    review_status     text NOT NULL CHECK (review_status IN ('unreviewed', 'published', 'rejected')),
    review_reason     text,
    reviewed_by       uuid REFERENCES users (id),
    reviewed_at       timestamptz,
    revision          integer NOT NULL DEFAULT 1,
    created_by        uuid REFERENCES users (id),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX assessments_org_idx ON assessments (organization_id, id);
CREATE INDEX assessments_item_idx ON assessments (organization_id, catalog_item_id, id);
