-- Flows name the counterparty the packaging was supplied to (PPWR Art. 22,
-- rule R40): sent with a direct flow; a flow a supply event generated
-- carries the event's, so the rows already generated take it over.
ALTER TABLE flows
    ADD COLUMN counterparty_name    text,
    ADD COLUMN counterparty_country text,
    ADD COLUMN counterparty_address text;

UPDATE flows f
SET counterparty_name = e.counterparty_name, counterparty_country = e.counterparty_country,
    counterparty_address = e.counterparty_address
FROM supply_events e
WHERE f.supply_event_id = e.id AND e.counterparty_name IS NOT NULL;

-- An assessment reads an item's supply records by day.
CREATE INDEX flows_item_date_idx ON flows (catalog_item_id, event_on);
