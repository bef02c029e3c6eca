-- Supply events name the market their packaging reaches: the country of
-- the reporting flow a supply or a use generates.
ALTER TABLE supply_events ADD COLUMN country text;

-- Lists filter an item's events and the organization's flows by date.
CREATE INDEX supply_events_item_date_idx ON supply_events (catalog_item_id, event_on);
CREATE INDEX flows_org_date_idx ON flows (organization_id, event_on);
