-- Packaging catalogue and structure: folders, families, parties, catalogue
-- items with their components, immutable data versions and market
-- scenarios. Packaging is never deleted: items are archived.

CREATE TABLE folders (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    parent_id       uuid REFERENCES folders (id),
    name            text NOT NULL CHECK (btrim(name) <> ''),
    revision        integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX folders_org_parent_idx ON folders (organization_id, parent_id);

CREATE TABLE families (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    name            text NOT NULL CHECK (btrim(name) <> ''),
    description     text NOT NULL DEFAULT '',
    revision        integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX families_org_idx ON families (organization_id, id);

CREATE TABLE parties (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    name            text NOT NULL CHECK (btrim(name) <> ''),
    roles           text[] NOT NULL,
    country_code    text NOT NULL,
    tax_id          text NOT NULL DEFAULT '',
    email           text NOT NULL DEFAULT '',
    address         text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX parties_org_idx ON parties (organization_id, id);

CREATE TABLE catalog_items (
    id                  uuid PRIMARY KEY,
    organization_id     uuid NOT NULL REFERENCES organizations (id),
    internal_code       text NOT NULL CHECK (btrim(internal_code) <> ''),
    name                text NOT NULL CHECK (btrim(name) <> ''),
    sourcing_type       text NOT NULL,
    -- Grams per base unit.
    mass_g              numeric NOT NULL CHECK (mass_g > 0),
    main_material_code  text NOT NULL,
    stock_unit          text NOT NULL CHECK (stock_unit IN ('piece', 'm', 'm2', 'kg', 'l', 'm3')),
    stock_tracked       boolean NOT NULL DEFAULT false,
    food_contact_status text NOT NULL,
    reuse_type          text NOT NULL,
    folder_id           uuid REFERENCES folders (id),
    family_id           uuid REFERENCES families (id),
    status              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    revision            integer NOT NULL DEFAULT 1,
    -- Set when the item changed after its assessments were made.
    assessments_stale_since timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    archived_at         timestamptz,
    UNIQUE (organization_id, internal_code)
);
CREATE INDEX catalog_items_org_idx ON catalog_items (organization_id, id);
CREATE INDEX catalog_items_folder_idx ON catalog_items (folder_id) WHERE folder_id IS NOT NULL;
CREATE INDEX catalog_items_family_idx ON catalog_items (family_id) WHERE family_id IS NOT NULL;

CREATE TABLE catalog_item_components (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id uuid NOT NULL REFERENCES catalog_items (id),
    name            text NOT NULL CHECK (btrim(name) <> ''),
    role            text NOT NULL,
    material_code   text NOT NULL,
    mass_g          numeric NOT NULL CHECK (mass_g > 0),
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX catalog_item_components_item_idx ON catalog_item_components (catalog_item_id, id);

-- One immutable row per revision of an item: what stock and reporting
-- records cite as their data basis.
CREATE TABLE catalog_item_data_versions (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id uuid NOT NULL REFERENCES catalog_items (id),
    revision        integer NOT NULL,
    specifications  jsonb NOT NULL,
    components      jsonb NOT NULL,
    markets         jsonb NOT NULL,
    -- SHA-256 of the canonical JSON of revision, specifications, components and markets.
    sha256          text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (catalog_item_id, revision)
);

-- Market scenarios are immutable: a changed detail deactivates the old
-- scenario and creates a new one, so registers citing a scenario keep
-- their meaning.
CREATE TABLE market_scenarios (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id uuid NOT NULL REFERENCES catalog_items (id),
    country_code    text NOT NULL,
    origin_country  text,
    economic_role   text,
    assessment_date date,
    active          boolean NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    deactivated_at  timestamptz
);
CREATE UNIQUE INDEX market_scenarios_active_key ON market_scenarios (catalog_item_id, country_code) WHERE active;
