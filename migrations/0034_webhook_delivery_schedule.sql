-- Webhook deliveries on time.
--
-- A failed attempt already records its status code or error (webhook_attempts,
-- and last_error on the delivery); a delivery now also shows when it will be
-- tried next, so an integration or an operator can tell a delivery waiting
-- for its retry from one that is stuck. NULL once it succeeded or was given
-- up, and before its first attempt.
ALTER TABLE webhook_deliveries ADD COLUMN next_attempt_at timestamptz;

-- The relay polls for new events every second, so a delivery's first
-- attempt waited up to that second. An event that some active endpoint
-- subscribes to now wakes the relay at its commit, on the channel recorded
-- starts already use (0008): the relay's pass then writes the deliveries
-- with their workflow starts and makes the starts. Events nobody subscribes
-- to send nothing, so most writes do not pay for a notification (a
-- notifying commit is serialized with every other one).
CREATE FUNCTION notify_subscribed_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM new_events e
        JOIN webhook_endpoints w ON w.organization_id = e.organization_id AND w.status = 'active'
        WHERE e.type = ANY (w.events) OR '*' = ANY (w.events)
    ) THEN
        PERFORM pg_notify('workflow_starts', '');
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION notify_subscribed_events();
