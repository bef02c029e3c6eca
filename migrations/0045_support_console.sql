-- The support console (`ppwr support`): support staff sign in with a token
-- an operator created (`ppwr admin support-token create`). Like an API
-- key, a token is stored only as its SHA-256 hash and shown once; unlike
-- one, it belongs to no organization, since support works across them,
-- and it expires.
CREATE TABLE support_tokens (
    id           uuid PRIMARY KEY,
    -- The person the token is for: the console's audit entries name them.
    name         text NOT NULL CHECK (name <> ''),
    token_prefix text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz
);

-- A signed-in browser. The cookie holds the session id; the table holds
-- its hash, so a read of the table cannot be replayed as a cookie. Every
-- request reads its row (any replica of the console serves it), and a
-- session of a token since revoked or expired is refused at once. A
-- session signed in by the SSO proxy's header has no token.
CREATE TABLE support_sessions (
    id_hash    bytea PRIMARY KEY,
    token_id   uuid REFERENCES support_tokens (id) ON DELETE CASCADE,
    name       text NOT NULL,
    csrf_token text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX support_sessions_expiry_idx ON support_sessions (expires_at);
CREATE INDEX support_sessions_token_idx ON support_sessions (token_id);
