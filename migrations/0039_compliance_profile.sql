-- The organization's compliance profile: per Member State, the facts about
-- the operator that its PPWR obligations read (micro-enterprise, final
-- distributor, sales area, HORECA take-away, refill, re-use targets), its
-- values kept as JSON exactly as their declaration (register
-- ComplianceProfile in internal/register) validated them. One entry per
-- country is active: a new entry supersedes the previous one. Reviewed
-- once, four eyes, like register entries; only an accepted, active entry
-- is read by assessments.
CREATE TABLE compliance_profile_entries (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    country          text NOT NULL,
    "values"         jsonb NOT NULL,
    -- [{"kind": "document_version", "id": uuid, "field": path}]
    evidence         jsonb NOT NULL DEFAULT '[]',
    status           text NOT NULL CHECK (status IN ('active', 'superseded')),
    supersedes       uuid REFERENCES compliance_profile_entries (id),
    superseded_by    uuid REFERENCES compliance_profile_entries (id),
    review_status    text NOT NULL CHECK (review_status IN ('unreviewed', 'accepted', 'rejected', 'needs_changes')),
    review_reason    text,
    reviewed_by      uuid REFERENCES users (id),
    reviewed_at      timestamptz,
    revision         integer NOT NULL DEFAULT 1,
    created_by       uuid REFERENCES users (id),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'superseded') = (superseded_by IS NOT NULL)),
    CHECK ((review_status = 'unreviewed') = (reviewed_at IS NULL))
);
CREATE INDEX compliance_profile_entries_org_idx ON compliance_profile_entries (organization_id, id);
-- An assessment is stale once a profile entry of its organization changed
-- after it was made.
CREATE INDEX compliance_profile_entries_changed_idx ON compliance_profile_entries (organization_id, updated_at);
