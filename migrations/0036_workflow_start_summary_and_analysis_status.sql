-- A recorded start says in words what its run does (an import's file,
-- kind and rows), written with the record's change: the relay gives it to
-- the run as its static summary, so the Temporal UI tells runs apart by
-- more than their ids. Rows recorded before have none ('') and start
-- without one.
ALTER TABLE workflow_starts ADD COLUMN summary text NOT NULL DEFAULT '';

-- A version's latest analysis run (analysis_count) is pollable: queued
-- until its workflow records what it found, then completed with how many
-- proposals it holds, so that "no proposals" reads apart from "not
-- finished". NULL for a version never analysed, and for the runs queued
-- before this migration, whose end was not recorded.
ALTER TABLE document_versions
    ADD COLUMN analysis_status text CHECK (analysis_status IN ('queued', 'completed')),
    ADD COLUMN analysis_proposal_count integer,
    ADD COLUMN analysis_completed_at timestamptz;
