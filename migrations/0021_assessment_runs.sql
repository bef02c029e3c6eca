-- Bulk assessment runs: every active item of an organization assessed by
-- the workflow assessment-run/<id>, in item-id order. last_item and done
-- move with each item's assessment, in its transaction, so a run resumed
-- after a worker crash continues after the last item assessed and never
-- assesses one twice.
CREATE TABLE assessment_runs (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    -- The one rule set assessed, or NULL for all published ones.
    rule_set         text,
    assessed_on      date NOT NULL,
    status           text NOT NULL CHECK (status IN ('running', 'completed')),
    total            integer NOT NULL,
    done             integer NOT NULL DEFAULT 0,
    last_item        uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz
);
