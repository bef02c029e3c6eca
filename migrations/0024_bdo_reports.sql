-- BDO report runs: a snapshot of a year's classified sources, taken once
-- and never recalculated, with its totals, its warnings and the exports
-- the workflow bdo-report/<id> renders. No fee is ever computed
-- (settlement_mode is always not_calculated) and nothing is filed.
CREATE TABLE bdo_reports (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    year             integer NOT NULL,
    status           text NOT NULL CHECK (status IN ('prepared', 'needs_review')),
    settlement_mode  text NOT NULL CHECK (settlement_mode = 'not_calculated'),
    -- How grams became the Mg of the totals.
    rounding         text NOT NULL,
    totals           jsonb NOT NULL,
    warnings         jsonb NOT NULL,
    source_count     integer NOT NULL,
    export_status    text NOT NULL CHECK (export_status IN ('rendering', 'ready', 'failed')),
    export_error     text,
    xlsx_key         text,
    json_key         text,
    rendered_at      timestamptz,
    created_by       uuid REFERENCES users (id),
    created_at       timestamptz NOT NULL
);
CREATE INDEX bdo_reports_org_idx ON bdo_reports (organization_id, id);

-- The sources behind a report's totals, as classified when it was taken.
-- A report's rows are written at once, by the statement that creates the
-- report, and never change: like the other append-only tables they carry
-- no foreign key, whose check per row would double the time of a
-- million-row snapshot. Report ids grow with time (UUIDv7), so a BRIN index
-- finds a report's rows for the price of a few pages, where a B-tree over
-- a million keys would slow the snapshot down too.
CREATE TABLE bdo_report_sources (
    report_id        uuid NOT NULL,
    -- The source's key is source_kind:source_id.
    source_kind      text NOT NULL CHECK (source_kind IN ('flow', 'supply')),
    source_id        uuid NOT NULL,
    event_on         date NOT NULL,
    catalog_item_id  uuid NOT NULL,
    section          text NOT NULL,
    material_group   text,
    reusable         boolean NOT NULL,
    mass_g           numeric NOT NULL,
    classified       boolean NOT NULL
);
CREATE INDEX bdo_report_sources_report_idx ON bdo_report_sources USING brin (report_id);
