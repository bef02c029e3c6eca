-- Applying an import updates each of its rows once, recording what the
-- row changed. The preview filled every page, so each update moved its
-- row to another page: a new entry in each of the table's three indexes
-- and the whole row (its input and plan) written to the log again. Half
-- of each page is left free for that update, so it stays on the row's
-- page (a heap-only update: no index entries, and the log records only
-- the changed end of the row). Pages written before this keep their
-- layout.
ALTER TABLE import_rows SET (fillfactor = 50);
