-- Long jobs show their progress: the stage they are at (one of the job's
-- stages, declared in Go in the order they are passed), the units done
-- of the stage's total (NULL while the total is unknown) and when it last
-- moved. Only domain.Progress.Advance writes them after a record is
-- created, and only forward: a stage later in the job's order, or more
-- done in the same stage.
--
-- Jobs that ended before this migration show their last stage as done:
-- their counts are known where the record kept them, 0 of 0 otherwise.
-- An apply under way starts its stage from nothing and moves on from
-- there; other jobs under way start queued.
ALTER TABLE imports
    ADD COLUMN progress_stage text NOT NULL DEFAULT 'queued',
    ADD COLUMN progress_done bigint NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
    ADD COLUMN progress_total bigint CHECK (progress_total >= 0),
    ADD COLUMN progress_updated_at timestamptz NOT NULL DEFAULT now();
UPDATE imports SET progress_stage = CASE WHEN status IN ('ready', 'failed') THEN 'previewing' ELSE 'applying' END,
    progress_done = CASE WHEN status = 'applying' THEN 0 ELSE create_count + update_count + unchanged_count + invalid_count END,
    progress_total = create_count + update_count + unchanged_count + invalid_count,
    progress_updated_at = updated_at
WHERE status <> 'queued';

ALTER TABLE reports
    ADD COLUMN progress_stage text NOT NULL DEFAULT 'queued',
    ADD COLUMN progress_done bigint NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
    ADD COLUMN progress_total bigint CHECK (progress_total >= 0),
    ADD COLUMN progress_updated_at timestamptz NOT NULL DEFAULT now();
UPDATE reports SET progress_stage = 'writing_rows', progress_done = coalesce(row_count, 0), progress_total = coalesce(row_count, 0),
    progress_updated_at = coalesce(completed_at, created_at)
WHERE status IN ('completed', 'failed');

ALTER TABLE bdo_reports
    ADD COLUMN progress_stage text NOT NULL DEFAULT 'queued',
    ADD COLUMN progress_done bigint NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
    ADD COLUMN progress_total bigint CHECK (progress_total >= 0),
    ADD COLUMN progress_updated_at timestamptz NOT NULL DEFAULT now();
UPDATE bdo_reports SET progress_stage = 'writing_sources', progress_total = 0 WHERE export_status <> 'rendering';

ALTER TABLE document_versions
    ADD COLUMN progress_stage text NOT NULL DEFAULT 'queued',
    ADD COLUMN progress_done bigint NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
    ADD COLUMN progress_total bigint CHECK (progress_total >= 0),
    ADD COLUMN progress_updated_at timestamptz NOT NULL DEFAULT now();
UPDATE document_versions SET progress_stage = 'finished', progress_done = coalesce(page_count, 0), progress_total = coalesce(page_count, 0),
    progress_updated_at = coalesce(processed_at, updated_at)
WHERE processing_status NOT IN ('queued', 'running');

ALTER TABLE authority_requests
    ADD COLUMN progress_stage text NOT NULL DEFAULT 'queued',
    ADD COLUMN progress_done bigint NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
    ADD COLUMN progress_total bigint CHECK (progress_total >= 0),
    ADD COLUMN progress_updated_at timestamptz NOT NULL DEFAULT now();
UPDATE authority_requests SET progress_stage = 'collecting', progress_total = 0, progress_updated_at = coalesce(bundle_built_at, updated_at)
WHERE bundle_status <> 'building';

ALTER TABLE assessment_runs
    ADD COLUMN progress_stage text NOT NULL DEFAULT 'queued',
    ADD COLUMN progress_done bigint NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
    ADD COLUMN progress_total bigint CHECK (progress_total >= 0),
    ADD COLUMN progress_updated_at timestamptz NOT NULL DEFAULT now();
UPDATE assessment_runs SET progress_stage = 'assessing', progress_done = done, progress_total = total,
    progress_updated_at = coalesce(finished_at, created_at)
WHERE status = 'completed';
