-- How a person classified a source of the Polish annual packaging report
-- (a flow or a supply event of a year): the report section, and when the
-- source's own data is not what counts, the material group, single-use or
-- reusable, or its exclusion with a reason. The latest classification of
-- a source wins; stored reports keep the snapshot they took.
CREATE TABLE bdo_classifications (
    organization_id   uuid NOT NULL REFERENCES organizations (id),
    source_kind       text NOT NULL CHECK (source_kind IN ('flow', 'supply')),
    source_id         uuid NOT NULL,
    year              integer NOT NULL,
    section           text NOT NULL,
    material_group    text,
    reusable          boolean,
    excluded          boolean NOT NULL DEFAULT false,
    exclusion_reason  text,
    classified_by     uuid REFERENCES users (id),
    classified_at     timestamptz NOT NULL,
    PRIMARY KEY (organization_id, source_kind, source_id),
    CHECK (excluded = (exclusion_reason IS NOT NULL))
);

-- A year's sources are read by date.
CREATE INDEX flows_org_event_idx ON flows (organization_id, event_on, id);
CREATE INDEX supply_events_org_event_idx ON supply_events (organization_id, event_on, id);
