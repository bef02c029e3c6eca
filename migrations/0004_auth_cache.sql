-- Replicas cache credentials in memory. Any change to what authorization
-- reads (keys, memberships, users, organizations) notifies channel
-- ppwr_auth on commit, and every replica drops its cache.

CREATE FUNCTION ppwr_notify_auth_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('ppwr_auth', TG_TABLE_NAME);
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION ppwr_notify_auth_changed();
CREATE TRIGGER memberships_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memberships
    FOR EACH STATEMENT EXECUTE FUNCTION ppwr_notify_auth_changed();
CREATE TRIGGER users_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION ppwr_notify_auth_changed();
CREATE TRIGGER organizations_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION ppwr_notify_auth_changed();
