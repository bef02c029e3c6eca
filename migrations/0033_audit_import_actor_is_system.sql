-- An import's apply wrote its audit entries with actor_kind 'import'
-- (0008), a kind the API does not publish: GET /audit-log declares
-- actor.type as api_key, operator or system, so a client generated from
-- the OpenAPI document refused any page holding such an entry. The apply
-- acts as the system for a record, like every other workflow, and now
-- writes 'system'; the entries keep what tied them to the import: the
-- import as their record, the apply's workflow id as their request id and
-- the rows in their summary.
--
-- The audit log is append-only, and this is no edit of what happened: it
-- corrects a value the service wrote in a form its own contract does not
-- allow, so the stored entries read as the entries written from now on.
-- The constraint then allows the published kinds only again, so the value
-- cannot come back.
UPDATE audit_log SET actor_kind = 'system' WHERE actor_kind = 'import';
ALTER TABLE audit_log DROP CONSTRAINT audit_log_actor_kind_check;
ALTER TABLE audit_log ADD CONSTRAINT audit_log_actor_kind_check
    CHECK (actor_kind IN ('api_key', 'operator', 'system'));
