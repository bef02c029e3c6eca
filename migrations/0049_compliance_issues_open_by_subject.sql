-- The open issue of a subject is found by its subject first. Led by the
-- organization and kind, the index left PostgreSQL a choice whose cost it
-- judged by statistics: a table analysed while small (or never, where
-- autovacuum is off) made it read every open issue of the organization
-- and kind and filter the subjects, which grew with each item a bulk
-- assessment run assessed. Led by the subject, the only index that serves
-- a resolve is this one, whatever the statistics say. The conflict target
-- of RestateIssues names the same columns, so it uses this index too.
CREATE UNIQUE INDEX compliance_issues_open_subject ON compliance_issues (subject_id, kind, organization_id) WHERE status = 'open';
DROP INDEX compliance_issues_open_once;
