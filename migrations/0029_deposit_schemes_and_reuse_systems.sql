-- Deposit-return schemes an organization's items take part in, per market
-- (PPWR Art. 50, rule R62). A record of participation only: the service
-- never collects or refunds a deposit (the spec's boundary 3). Reviewed
-- once, four eyes, like register entries.
CREATE TABLE deposit_schemes (
    id                 uuid PRIMARY KEY,
    organization_id    uuid NOT NULL REFERENCES organizations (id),
    market             text NOT NULL,
    scheme_name        text NOT NULL CHECK (btrim(scheme_name) <> ''),
    scheme_operator    text NOT NULL CHECK (btrim(scheme_operator) <> ''),
    deposit_amount     numeric NOT NULL CHECK (deposit_amount > 0),
    currency           text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    -- Catalogue item ids covered, and approved document-version ids.
    items              jsonb NOT NULL,
    label_requirement  text NOT NULL CHECK (btrim(label_requirement) <> ''),
    label_applied      boolean NOT NULL,
    evidence           jsonb NOT NULL DEFAULT '[]',
    participates_from  date NOT NULL,
    review_status      text NOT NULL DEFAULT 'unreviewed' CHECK (review_status IN ('unreviewed', 'accepted', 'rejected')),
    review_reason      text,
    reviewed_by        uuid REFERENCES users (id),
    reviewed_at        timestamptz,
    created_by         uuid REFERENCES users (id),
    revision           integer NOT NULL DEFAULT 1,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deposit_schemes_org_idx ON deposit_schemes (organization_id, id);

-- Re-use systems (PPWR Art. 26-27, Annex VI Parts A-B): who runs them,
-- open or closed loop, the participants with their written confirmations,
-- the reconditioning steps and the items they cover. Reuse units name
-- their system by this record's id or code (register reuse-units, field
-- reuse_system), which is how statistics find their units.
CREATE TABLE reuse_systems (
    id                    uuid PRIMARY KEY,
    organization_id       uuid NOT NULL REFERENCES organizations (id),
    code                  text NOT NULL CHECK (btrim(code) <> ''),
    name                  text NOT NULL CHECK (btrim(name) <> ''),
    operator              text NOT NULL CHECK (btrim(operator) <> ''),
    loop                  text NOT NULL CHECK (loop IN ('closed_loop', 'open_loop')),
    return_incentive      text NOT NULL CHECK (btrim(return_incentive) <> ''),
    participants          jsonb NOT NULL,
    reconditioning_steps  jsonb NOT NULL,
    items                 jsonb NOT NULL,
    markets               jsonb NOT NULL,
    created_by            uuid REFERENCES users (id),
    revision              integer NOT NULL DEFAULT 1,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, code)
);
