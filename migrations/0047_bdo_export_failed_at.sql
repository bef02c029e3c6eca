-- When a BDO report's exports failed: support staff see failed work newest
-- first (domain/attention), and a report's creation says nothing of when
-- its rendering gave up. Exports that failed before this column existed
-- take the time their progress last moved, the closest record of it.
ALTER TABLE bdo_reports ADD COLUMN export_failed_at timestamptz;
UPDATE bdo_reports SET export_failed_at = progress_updated_at WHERE export_status = 'failed';
ALTER TABLE bdo_reports ADD CONSTRAINT bdo_reports_export_failed_at_check
    CHECK ((export_status = 'failed') = (export_failed_at IS NOT NULL));
