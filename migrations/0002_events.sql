-- Outbound events: endpoints configured by operators, the transactional
-- outbox, and one delivery (with its attempts) per event and endpoint.

CREATE TABLE webhook_endpoints (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    url             text NOT NULL,
    -- Subscribed event types; '{*}' means every type.
    events          text[] NOT NULL,
    -- Secrets are needed in clear to sign. During a rotation the previous
    -- secret keeps signing until previous_secret_expires_at.
    secret                     text NOT NULL CHECK (secret LIKE 'whsec\_%'),
    previous_secret            text,
    previous_secret_expires_at timestamptz,
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (organization_id) WHERE status = 'active';

CREATE TABLE events (
    -- UUIDv7, so id order is emission order for the relay.
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    type            text NOT NULL,
    -- The exact bytes every delivery of this event POSTs: retries never
    -- change the body, only its signature.
    body            text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    relayed_at      timestamptz
);
-- The relay's work queue: only events not relayed yet.
CREATE INDEX events_unrelayed_idx ON events (id) WHERE relayed_at IS NULL;

CREATE TABLE webhook_deliveries (
    id            uuid PRIMARY KEY,
    event_id      uuid NOT NULL REFERENCES events (id),
    endpoint_id   uuid NOT NULL REFERENCES webhook_endpoints (id),
    status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts      integer NOT NULL DEFAULT 0,
    last_error    text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    completed_at  timestamptz,
    UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
    id           uuid PRIMARY KEY,
    delivery_id  uuid NOT NULL REFERENCES webhook_deliveries (id),
    attempted_at timestamptz NOT NULL,
    status_code  integer,
    duration_ms  integer NOT NULL,
    error        text NOT NULL DEFAULT ''
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempted_at);
