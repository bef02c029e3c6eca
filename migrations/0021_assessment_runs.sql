-- Bulk assessment runs: every active item of an organization assessed by
-- the workflow assessment-run/<id>, in batches in item-id order. An
-- assessment made by a run names it, at most once per item (the unique
-- index), so a batch retried after a worker crash skips the items already
-- done. last_item is the end of the last finished batch; done counts the
-- items assessed.
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

ALTER TABLE assessments ADD COLUMN run_id uuid REFERENCES assessment_runs (id);
CREATE UNIQUE INDEX assessments_run_item_key ON assessments (run_id, catalog_item_id) WHERE run_id IS NOT NULL;
