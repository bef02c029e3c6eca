-- Durable workflow starts. A handler that needs a workflow cannot start it
-- inside its transaction: Temporal is not part of it, so a start before the
-- commit runs a workflow for a change that may still roll back, and a start
-- after the commit is lost when the process dies in between. Instead the
-- handler writes a row here in the transaction of the change, so the row
-- exists if and only if the change committed, and the worker's relay starts
-- the workflow from it. The relay starts with the id derived from the record
-- and a duplicate-rejecting id policy, so a start repeated after a crash
-- (started in Temporal, not yet marked here) joins the existing run: a crash
-- delays a workflow, it never loses one nor runs it twice.
--
-- Like events it is an append-only log without foreign keys (see 0005): its
-- writers take the organization from the request's credential, and system
-- workflows belong to no organization ('system'). A workflow_id may appear
-- on several rows (two requests for one record); the id policy makes every
-- start after the first a no-op.
CREATE TABLE workflow_starts (
    -- UUIDv7, so id order is recording order for the relay.
    id              uuid PRIMARY KEY,
    -- Derived from the record, e.g. 'import/<id>'.
    workflow_id     text NOT NULL,
    -- The workflow's registered type name.
    workflow_type   text NOT NULL,
    -- A uuid, or 'system'; with resource_id the run's search attributes.
    organization_id text NOT NULL,
    resource_id     text NOT NULL,
    -- The workflow's argument, JSON as Temporal's data converter writes it.
    input           jsonb NOT NULL,
    created_at      timestamptz NOT NULL,
    -- Set, with the run's id, in the relay's transaction that started it.
    started_at      timestamptz,
    run_id          text,
    -- Start attempts so far, and the error of the last one ('' if none or it
    -- succeeded): a start fails while Temporal is unreachable and is retried
    -- on the relay's next pass.
    attempts        integer NOT NULL DEFAULT 0,
    last_error      text NOT NULL DEFAULT ''
);
-- The relay's work queue: only starts not made yet.
CREATE INDEX workflow_starts_unstarted_idx ON workflow_starts (id) WHERE started_at IS NULL;
