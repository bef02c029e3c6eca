-- A recorded start says in words what its run does (an import's file,
-- kind and rows), written with the record's change: the relay gives it to
-- the run as its static summary, so the Temporal UI tells runs apart by
-- more than their ids. Rows recorded before have none ('') and start
-- without one.
ALTER TABLE workflow_starts ADD COLUMN summary text NOT NULL DEFAULT '';
