-- Carbon: an organization's own emission factors, preferred over the
-- reference sets the service ships (internal/carbonref), and calculations,
-- which are immutable: each line keeps the factor it used, so archiving a
-- factor or publishing a new reference set never changes a result.
CREATE TABLE carbon_factors (
    id                 uuid PRIMARY KEY,
    organization_id    uuid NOT NULL REFERENCES organizations (id),
    name               text NOT NULL CHECK (btrim(name) <> ''),
    material_code      text NOT NULL,
    variant            text NOT NULL CHECK (variant IN ('primary', 'recycled')),
    value              numeric NOT NULL CHECK (value >= 0),
    unit               text NOT NULL CHECK (unit IN ('kg CO2e/kg', 'kg CO2e/t')),
    scope              text NOT NULL CHECK (scope IN ('scope_1', 'scope_2', 'scope_3')),
    source             text NOT NULL CHECK (btrim(source) <> ''),
    boundary           text,
    valid_from         date,
    valid_until        date CHECK (valid_until >= valid_from),
    supplier_document  uuid REFERENCES document_versions (id),
    active             boolean NOT NULL DEFAULT true,
    archived_at        timestamptz,
    revision           integer NOT NULL DEFAULT 1,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX carbon_factors_org_idx ON carbon_factors (organization_id, id);

CREATE TABLE carbon_calculations (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    subject          uuid NOT NULL,
    type             text NOT NULL CHECK (type IN ('item', 'system')),
    calculated_on    date NOT NULL,
    -- The data version of an item; for a system, each line names its own.
    data_version_id  uuid REFERENCES catalog_item_data_versions (id),
    total_kg_co2e    numeric,
    lines            jsonb NOT NULL,
    missing          jsonb NOT NULL DEFAULT '[]',
    method           text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX carbon_calculations_org_idx ON carbon_calculations (organization_id, id);
CREATE INDEX carbon_calculations_subject_idx ON carbon_calculations (organization_id, subject, id);
