-- Passports: an item's compliance record. A passport is a draft until its
-- first publication; each publication freezes a new version whose
-- canonical JSON lives in the object store under object_key, and whose
-- SHA-256 is kept here so every later read can be verified. An item has
-- one passport: its versions are the history.
CREATE TABLE passports (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id  uuid NOT NULL REFERENCES catalog_items (id),
    status           text NOT NULL CHECK (status IN ('draft', 'published')),
    version_count    integer NOT NULL DEFAULT 0 CHECK (version_count >= 0),
    revision         integer NOT NULL DEFAULT 1,
    created_by       uuid REFERENCES users (id),
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    UNIQUE (organization_id, catalog_item_id),
    -- A draft has no version, a published passport at least one.
    CHECK ((status = 'draft') = (version_count = 0))
);
CREATE INDEX passports_org_idx ON passports (organization_id, id);

-- Versions never change once written: no updated_at, no revision.
CREATE TABLE passport_versions (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    passport_id      uuid NOT NULL REFERENCES passports (id),
    version          integer NOT NULL CHECK (version >= 1),
    catalog_revision integer NOT NULL,
    data_version_id  uuid NOT NULL REFERENCES catalog_item_data_versions (id),
    object_key       text NOT NULL,
    sha256           text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    size_bytes       bigint NOT NULL CHECK (size_bytes > 0),
    missing          jsonb NOT NULL DEFAULT '[]',
    published_by     uuid REFERENCES users (id),
    published_at     timestamptz NOT NULL,
    UNIQUE (passport_id, version)
);
CREATE INDEX passport_versions_org_idx ON passport_versions (organization_id, passport_id, version);

-- A grant is the one exception to organization scope: the grantee reads
-- the passport's latest published version while the grant is neither
-- revoked nor past expires_on (the last day of access). organization_id
-- is the granting organization, which alone can revoke; the grantee finds
-- its grants through the second index.
CREATE TABLE sharing_grants (
    id                      uuid PRIMARY KEY,
    organization_id         uuid NOT NULL REFERENCES organizations (id),
    passport_id             uuid NOT NULL REFERENCES passports (id),
    grantee_organization_id uuid NOT NULL REFERENCES organizations (id),
    expires_on              date,
    note                    text,
    revoked_at              timestamptz,
    revoked_by              uuid REFERENCES users (id),
    revoke_reason           text,
    revision                integer NOT NULL DEFAULT 1,
    created_by              uuid REFERENCES users (id),
    created_at              timestamptz NOT NULL,
    updated_at              timestamptz NOT NULL,
    CHECK (grantee_organization_id <> organization_id),
    CHECK (revoke_reason IS NULL OR revoked_at IS NOT NULL)
);
CREATE INDEX sharing_grants_org_idx ON sharing_grants (organization_id, id);
CREATE INDEX sharing_grants_grantee_idx ON sharing_grants (grantee_organization_id, id);
CREATE INDEX sharing_grants_passport_idx ON sharing_grants (organization_id, passport_id, grantee_organization_id);
