-- An import's preview writes every row of a file (100,000 in a large
-- one), and the foreign key to organizations made PostgreSQL check each
-- of them against the organization's row: about half of the insert's
-- time, for a fact the row's import already carries (imports keep their
-- key to organizations, and rows keep theirs to imports). As the log
-- tables of 0005, the rows go without it.
ALTER TABLE import_rows DROP CONSTRAINT import_rows_organization_id_fkey;
