-- Events and webhook endpoints in the API.
--
-- An organization deletes its own endpoints through the API. The row is
-- kept, with status 'deleted', because its deliveries and attempts refer
-- to it and a delivery still retrying must find it to stop (a deleted
-- endpoint is unusable, as a disabled one is). Every read but the
-- deliveries' history treats it as missing.
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_status_check;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_status_check
    CHECK (status IN ('active', 'disabled', 'deleted'));

-- GET /events lists one organization's events newest first (ids are
-- UUIDv7), optionally of one type.
CREATE INDEX events_organization_idx ON events (organization_id, id);
CREATE INDEX events_organization_type_idx ON events (organization_id, type, id);
