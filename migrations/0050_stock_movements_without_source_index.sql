-- No query looks stock movements up by their source: the ledger is read
-- by item (the balance check, the stock ledger report) and by item and
-- data version (the inventory of a version). The index on source_id only
-- cost every movement an index insert, on the path every parcel packed or
-- reserved takes.
DROP INDEX stock_movements_source_idx;
