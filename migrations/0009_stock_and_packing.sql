-- Stock, packing and flows: the stock ledger with its balances, supply
-- events, reporting flows, packing sets (packaging systems) with their
-- recipe lines, set usages, reservations, packing consumptions, the claim
-- of each parcel's order reference by one packing path, and the inner
-- dimensions packing recommendations fit products into.

-- Inner dimensions of packaging that holds products (boxes, mailers):
-- optional, in millimetres.
ALTER TABLE catalog_items
    ADD COLUMN inner_length_mm numeric CHECK (inner_length_mm > 0),
    ADD COLUMN inner_width_mm  numeric CHECK (inner_width_mm > 0),
    ADD COLUMN inner_height_mm numeric CHECK (inner_height_mm > 0);

-- One balance per item, in its stock unit: the row every stock change
-- locks, so concurrent requests take stock one after another. It equals
-- the sums of the item's movements.
CREATE TABLE stock_balances (
    catalog_item_id uuid PRIMARY KEY REFERENCES catalog_items (id),
    organization_id uuid NOT NULL REFERENCES organizations (id),
    physical        numeric NOT NULL DEFAULT 0,
    reserved        numeric NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- The ledger: append-only; a movement is never changed or deleted.
CREATE TABLE stock_movements (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL,
    catalog_item_id  uuid NOT NULL,
    -- The item's data version (its revision) the quantity was recorded on.
    data_version_id  uuid NOT NULL,
    kind             text NOT NULL,
    -- Changes of the physical and reserved quantities, in the stock unit.
    physical_delta   numeric NOT NULL,
    reserved_delta   numeric NOT NULL,
    -- What caused it: a supply event, set usage, packing consumption or
    -- reservation.
    source_type      text NOT NULL,
    source_id        uuid NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stock_movements_item_idx ON stock_movements (catalog_item_id, id);
CREATE INDEX stock_movements_version_idx ON stock_movements (data_version_id);
CREATE INDEX stock_movements_source_idx ON stock_movements (source_id);

CREATE TABLE supply_events (
    id                    uuid PRIMARY KEY,
    organization_id       uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id       uuid NOT NULL REFERENCES catalog_items (id),
    data_version_id       uuid NOT NULL REFERENCES catalog_item_data_versions (id),
    catalog_revision      integer NOT NULL,
    direction             text NOT NULL,
    -- As sent: quantity with its unit, or quantity_units.
    quantity              numeric,
    unit                  text,
    quantity_units        numeric,
    -- The quantity in the item's stock unit, signed as it moves stock,
    -- and its mass.
    stock_quantity        numeric NOT NULL,
    stock_unit            text NOT NULL,
    mass_g                numeric NOT NULL,
    counterparty_name     text,
    counterparty_country  text,
    counterparty_address  text,
    usage_channel         text,
    transaction_reference text,
    note                  text,
    event_on              date NOT NULL,
    reusable_at_event     text,
    flow_id               uuid,
    created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX supply_events_item_idx ON supply_events (catalog_item_id, id);

-- Reporting flows: packaging placed on a market or used, with its mass.
CREATE TABLE flows (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id  uuid NOT NULL REFERENCES catalog_items (id),
    data_version_id  uuid NOT NULL REFERENCES catalog_item_data_versions (id),
    kind             text NOT NULL CHECK (kind IN ('placed', 'used')),
    quantity         numeric NOT NULL,
    unit             text NOT NULL,
    mass_g           numeric NOT NULL CHECK (mass_g >= 0),
    country          text NOT NULL,
    event_on         date NOT NULL,
    reusable         boolean NOT NULL DEFAULT false,
    -- The supply event that generated it; NULL for a direct flow.
    supply_event_id  uuid REFERENCES supply_events (id),
    note             text,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX flows_org_idx ON flows (organization_id, id);
CREATE UNIQUE INDEX flows_supply_event_key ON flows (supply_event_id) WHERE supply_event_id IS NOT NULL;

CREATE TABLE packaging_systems (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    name            text NOT NULL CHECK (btrim(name) <> ''),
    code            text,
    description     text NOT NULL DEFAULT '',
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    revision        integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    archived_at     timestamptz
);
CREATE INDEX packaging_systems_org_idx ON packaging_systems (organization_id, id);
CREATE UNIQUE INDEX packaging_systems_code_key ON packaging_systems (organization_id, code) WHERE code IS NOT NULL;

CREATE TABLE packaging_system_lines (
    id                  uuid PRIMARY KEY,
    organization_id     uuid NOT NULL REFERENCES organizations (id),
    packaging_system_id uuid NOT NULL REFERENCES packaging_systems (id),
    catalog_item_id     uuid NOT NULL REFERENCES catalog_items (id),
    -- Per set, in unit (converted to the item's stock unit when used).
    quantity            numeric NOT NULL CHECK (quantity > 0),
    unit                text NOT NULL,
    role                text NOT NULL,
    outer_packaging     boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (packaging_system_id, catalog_item_id)
);

-- A use of a packing set: the frozen recipe, and how many sets went into
-- which parcel.
CREATE TABLE packaging_system_usages (
    id                  uuid PRIMARY KEY,
    organization_id     uuid NOT NULL REFERENCES organizations (id),
    packaging_system_id uuid NOT NULL REFERENCES packaging_systems (id),
    system_revision     integer NOT NULL,
    configuration_hash  text NOT NULL,
    composition         jsonb NOT NULL,
    sets_count          integer NOT NULL CHECK (sets_count > 0),
    order_reference     text NOT NULL,
    country             text NOT NULL,
    event_on            date NOT NULL,
    reservation_id      uuid,
    created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX packaging_system_usages_system_idx ON packaging_system_usages (packaging_system_id, id);

CREATE TABLE packing_reservations (
    id                  uuid PRIMARY KEY,
    organization_id     uuid NOT NULL REFERENCES organizations (id),
    packaging_system_id uuid NOT NULL REFERENCES packaging_systems (id),
    system_revision     integer NOT NULL,
    configuration_hash  text NOT NULL,
    composition         jsonb NOT NULL,
    sets_count          integer NOT NULL CHECK (sets_count > 0),
    order_reference     text NOT NULL,
    country             text NOT NULL,
    status              text NOT NULL CHECK (status IN ('held', 'released', 'consumed', 'expired')),
    expires_at          timestamptz NOT NULL,
    revision            integer NOT NULL DEFAULT 1,
    usage_id            uuid REFERENCES packaging_system_usages (id),
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    ended_at            timestamptz
);
CREATE INDEX packing_reservations_org_idx ON packing_reservations (organization_id, id);

CREATE TABLE packing_consumptions (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    order_reference text NOT NULL,
    event_on        date NOT NULL,
    country         text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE packing_consumption_lines (
    id                     uuid PRIMARY KEY,
    organization_id        uuid NOT NULL REFERENCES organizations (id),
    packing_consumption_id uuid NOT NULL REFERENCES packing_consumptions (id),
    catalog_item_id        uuid NOT NULL REFERENCES catalog_items (id),
    data_version_id        uuid NOT NULL REFERENCES catalog_item_data_versions (id),
    catalog_revision       integer NOT NULL,
    quantity               numeric NOT NULL CHECK (quantity > 0),
    unit                   text NOT NULL,
    stock_quantity         numeric NOT NULL,
    mass_g                 numeric NOT NULL,
    reusable               boolean NOT NULL,
    UNIQUE (packing_consumption_id, catalog_item_id)
);

-- One packing path per parcel: the order reference is claimed by the
-- reservation, set usage or packing consumption that packed it. A released
-- or expired reservation gives its claim up.
CREATE TABLE parcel_claims (
    organization_id uuid NOT NULL REFERENCES organizations (id),
    order_reference text NOT NULL,
    path            text NOT NULL CHECK (path IN ('reservation', 'set_consumption', 'packing_consumption')),
    record_id       uuid NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (organization_id, order_reference)
);
