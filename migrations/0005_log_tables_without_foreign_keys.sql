-- Append-only tables written on every API write carry no foreign keys to
-- the rows they mention. Each foreign-key check locks the parent row
-- (FOR KEY SHARE), and these parents are the same for every write of an
-- organization: its organizations row, the caller's user and key. Under
-- concurrent writes those shared locks cost a quarter of a write's database
-- throughput. Their writers take the ids from the request's credential,
-- none of the parents is ever deleted (keys are revoked, organizations
-- suspended), and an audit trail must not depend on what it records.
ALTER TABLE audit_log
    DROP CONSTRAINT audit_log_organization_id_fkey,
    DROP CONSTRAINT audit_log_actor_user_id_fkey,
    DROP CONSTRAINT audit_log_api_key_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_organization_id_fkey;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_api_key_id_fkey;
-- A data version's item already belongs to the organization.
ALTER TABLE catalog_item_data_versions DROP CONSTRAINT catalog_item_data_versions_organization_id_fkey;
