-- Tenancy, identity and the request pipeline's shared state (audit log,
-- idempotency records, rate-limit buckets).

CREATE TABLE organizations (
    id            uuid PRIMARY KEY,
    name          text NOT NULL CHECK (name <> ''),
    slug          text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
    status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    require_mfa   boolean NOT NULL DEFAULT false,
    dual_control  boolean NOT NULL DEFAULT false,
    -- Empty means "any address"; otherwise the caller's IP must fall in one.
    ip_allow_list cidr[] NOT NULL DEFAULT '{}',
    revision      integer NOT NULL DEFAULT 1,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id                uuid PRIMARY KEY,
    email             text NOT NULL CHECK (email LIKE '%_@_%'),
    name              text NOT NULL DEFAULT '',
    email_verified_at timestamptz,
    mfa_enabled       boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    user_id         uuid NOT NULL REFERENCES users (id),
    role            text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    -- Explicit permissions; owner and admin hold all regardless of this list.
    permissions     text[] NOT NULL DEFAULT '{}',
    active          boolean NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (organization_id, user_id)
);

CREATE TABLE api_keys (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    user_id         uuid NOT NULL REFERENCES users (id),
    name            text NOT NULL DEFAULT '',
    -- The first characters of the token, so operators can tell keys apart
    -- without the secret; the token itself is never stored.
    token_prefix    text NOT NULL,
    token_hash      bytea NOT NULL UNIQUE,
    abilities       text[] NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    revoked_at      timestamptz
);
CREATE INDEX api_keys_organization_idx ON api_keys (organization_id);

CREATE TABLE audit_log (
    -- UUIDv7: time-ordered, so the primary key is also the pagination order.
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    occurred_at     timestamptz NOT NULL,
    actor_user_id   uuid REFERENCES users (id),
    api_key_id      uuid REFERENCES api_keys (id),
    actor_kind      text NOT NULL CHECK (actor_kind IN ('api_key', 'operator', 'system')),
    operation       text NOT NULL,
    method          text NOT NULL DEFAULT '',
    path            text NOT NULL DEFAULT '',
    status          integer,
    record_type     text NOT NULL DEFAULT '',
    record_id       uuid,
    request_id      text NOT NULL DEFAULT '',
    summary         jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_org_time_idx ON audit_log (organization_id, occurred_at, id);
CREATE INDEX audit_log_org_id_idx ON audit_log (organization_id, id);

CREATE TABLE idempotency_keys (
    api_key_id       uuid NOT NULL REFERENCES api_keys (id),
    key              text NOT NULL,
    operation        text NOT NULL,
    -- SHA-256 of method, path and body: the same key with another request is a 409.
    fingerprint      bytea NOT NULL,
    response_status  integer NOT NULL,
    response_headers jsonb NOT NULL DEFAULT '{}',
    response_body    bytea NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    PRIMARY KEY (api_key_id, key)
);
CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at);

-- Generic cell rate algorithm state: one row per bucket holding the
-- theoretical arrival time (tat), so every API replica enforces one limit.
-- UNLOGGED: written on busy request paths, so it skips the WAL (and its
-- flush at commit); after a crash the table is empty, which only forgives
-- a minute of rate-limit history.
CREATE UNLOGGED TABLE rate_limit_buckets (
    bucket  text PRIMARY KEY,
    tat     timestamptz NOT NULL,
    granted integer NOT NULL -- requests granted by the last call
);

-- ppwr_take_rate_tokens takes up to p_want requests at once from a bucket
-- that admits a burst of one minute's worth of requests and then one every
-- p_interval_us microseconds. A replica spends what it took locally, so a
-- busy client does not write here on every request (internal/ratelimit).
-- It answers how many were granted (0 when none fits) and, if none, the
-- seconds until one would. It uses the database clock so that replicas
-- with skewed clocks agree, writes the row once, and is plpgsql so that its
-- plan is cached.
CREATE FUNCTION ppwr_take_rate_tokens(p_bucket text, p_interval_us bigint, p_want integer,
                                      OUT granted integer, OUT wait_seconds double precision)
LANGUAGE plpgsql AS $$
DECLARE
    now_t   timestamptz := clock_timestamp();
    step    interval := p_interval_us * interval '1 microsecond';
    burst   integer := greatest(1, (60000000 / p_interval_us)::integer);
    new_tat timestamptz;
BEGIN
    INSERT INTO rate_limit_buckets AS b (bucket, tat, granted)
    VALUES (p_bucket, now_t + least(p_want, burst) * step, least(p_want, burst))
    ON CONFLICT (bucket) DO UPDATE SET
        granted = least(p_want, greatest(0, floor(extract(epoch FROM now_t + interval '1 minute' - greatest(b.tat, now_t)) * 1e6 / p_interval_us)))::integer,
        tat = greatest(b.tat, now_t)
              + least(p_want, greatest(0, floor(extract(epoch FROM now_t + interval '1 minute' - greatest(b.tat, now_t)) * 1e6 / p_interval_us)))::integer * step
    RETURNING b.granted, b.tat INTO granted, new_tat;
    wait_seconds := CASE WHEN granted > 0 THEN 0
                         ELSE extract(epoch FROM new_tat + step - interval '1 minute' - now_t) END;
END
$$;
