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
CREATE TABLE bdo_report_sources (
    report_id        uuid NOT NULL REFERENCES bdo_reports (id),
    source_key       text NOT NULL,
    event_on         date NOT NULL,
    catalog_item_id  uuid NOT NULL,
    section          text NOT NULL,
    material_group   text,
    reusable         boolean NOT NULL,
    mass_g           numeric NOT NULL,
    classified       boolean NOT NULL,
    PRIMARY KEY (report_id, source_key)
);
