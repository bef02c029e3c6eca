-- Authority requests (PPWR Art. 15(10), 17(2), 18(8); rule R38): a
-- market surveillance authority's reasoned request for the technical
-- documentation of some items, answered within 10 days of receipt. The
-- record holds the request as received, the bundle the workflow
-- authority-request/<id> assembles into the object store, and when the
-- organization answered. It records no decision of the authority.
CREATE TABLE authority_requests (
    id                  uuid PRIMARY KEY,
    organization_id     uuid NOT NULL REFERENCES organizations (id),
    authority_name      text NOT NULL CHECK (btrim(authority_name) <> ''),
    -- A Member State's ISO 3166-1 alpha-2 code, checked against the
    -- dictionaries by the service.
    authority_country   text NOT NULL CHECK (authority_country ~ '^[A-Z]{2}$'),
    authority_reference text NOT NULL CHECK (btrim(authority_reference) <> ''),
    subject             text,
    note                text,
    -- Catalogue item ids of the organization the request concerns.
    items               jsonb NOT NULL CHECK (jsonb_typeof(items) = 'array' AND jsonb_array_length(items) > 0),
    received_on         date NOT NULL,
    -- The deadline is the law's, never the client's: the check keeps a
    -- later change of the rule from leaving old rows inconsistent unnoticed.
    due_on              date NOT NULL CHECK (due_on = received_on + 10),
    answered_on         date CHECK (answered_on >= received_on),
    bundle_status       text NOT NULL CHECK (bundle_status IN ('building', 'ready', 'failed')),
    bundle_object_key   text,
    bundle_size_bytes   bigint,
    bundle_sha256       text CHECK (bundle_sha256 ~ '^[0-9a-f]{64}$'),
    bundle_error        text,
    bundle_built_at     timestamptz,
    created_by          uuid REFERENCES users (id),
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    -- A ready bundle is downloadable, so its file and digest must be known;
    -- a failed one says why.
    CONSTRAINT authority_requests_ready_file CHECK ((bundle_status = 'ready') =
        (bundle_object_key IS NOT NULL AND bundle_size_bytes IS NOT NULL AND bundle_sha256 IS NOT NULL)),
    CONSTRAINT authority_requests_failed_error CHECK ((bundle_status = 'failed') = (bundle_error IS NOT NULL))
);
CREATE INDEX authority_requests_org_idx ON authority_requests (organization_id, id);
