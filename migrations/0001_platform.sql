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
-- UNLOGGED: written on every request, so it skips the WAL (and its flush at
-- commit); after a crash the table is empty, which only forgives a minute
-- of rate-limit history.
CREATE UNLOGGED TABLE rate_limit_buckets (
    bucket  text PRIMARY KEY,
    tat     timestamptz NOT NULL,
    allowed boolean NOT NULL -- outcome of the last charge
);

-- ppwr_take_rate_token charges one request against a bucket that admits a
-- burst of one minute's worth of requests and then one request every
-- p_interval_us microseconds. It answers whether the request is allowed and,
-- if not, the seconds until it would be. It is a function so that the
-- authentication query can charge the caller's buckets in the same round
-- trip (models.LookupCredential). It uses the database clock so that
-- replicas with skewed clocks agree, and one statement so that the row is
-- written once.
CREATE FUNCTION ppwr_take_rate_token(p_bucket text, p_interval_us bigint,
                                     OUT allowed boolean, OUT wait_seconds double precision)
-- plpgsql rather than sql: PostgreSQL re-plans a non-inlinable SQL
-- function on every call but caches a plpgsql function's plans.
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rate_limit_buckets AS b (bucket, tat, allowed)
    VALUES (p_bucket, clock_timestamp() + p_interval_us * interval '1 microsecond', true)
    ON CONFLICT (bucket) DO UPDATE SET
        allowed = GREATEST(b.tat, clock_timestamp()) + p_interval_us * interval '1 microsecond'
                  <= clock_timestamp() + interval '1 minute',
        tat = CASE WHEN GREATEST(b.tat, clock_timestamp()) + p_interval_us * interval '1 microsecond'
                        <= clock_timestamp() + interval '1 minute'
                   THEN GREATEST(b.tat, clock_timestamp()) + p_interval_us * interval '1 microsecond'
                   ELSE b.tat END
    RETURNING b.allowed,
              CASE WHEN b.allowed THEN 0
                   ELSE EXTRACT(EPOCH FROM b.tat + p_interval_us * interval '1 microsecond'
                                           - interval '1 minute' - clock_timestamp()) END
    INTO allowed, wait_seconds;
END
$$;
