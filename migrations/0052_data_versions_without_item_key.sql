-- An import's apply writes a thousand items and their first data versions
-- per batch, and PostgreSQL checked each data version's key to its item
-- row by row: a query, and a lock on the item's row (taken to keep it from
-- being deleted) that writes that row again in the log, although the same
-- transaction had just written the item. In a 100,000-row apply that check
-- was the largest part of writing the data versions. As for the log tables
-- of 0005: a data version is written only by the command that writes its
-- item's revision, in the same transaction, it is never changed, and items
-- are never deleted (they are archived).
ALTER TABLE catalog_item_data_versions DROP CONSTRAINT catalog_item_data_versions_catalog_item_id_fkey;
