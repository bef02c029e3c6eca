-- Every read of an assessment asks when a supply record of its item, and
-- a flow of its organization dated in each closed year the rules measure,
-- was last recorded (assessments.AssessmentStale): read backwards from
-- the end of an index by item, or by organization and year, and time of
-- recording. The organization's other records an assessment reads
-- (deposit schemes, authority requests, re-use systems, refill stations,
-- EPR reports) are a handful per organization and already indexed by it.
CREATE INDEX supply_events_item_created_idx ON supply_events (catalog_item_id, created_at);
CREATE INDEX flows_item_created_idx ON flows (catalog_item_id, created_at);
CREATE INDEX flows_org_year_created_idx ON flows (organization_id, (extract(year FROM event_on)::int), created_at);
