-- Replies to supplier requests received by e-mail: the raw message stays
-- in the object store, each attachment becomes a document version filed
-- under the request (and its line when the reply tells which).

CREATE TABLE supplier_request_replies (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    request_id       uuid NOT NULL REFERENCES supplier_requests (id),
    envelope_from    text NOT NULL,
    -- The address of the From header: the one compared with the request's
    -- recipients.
    sender           text,
    subject          text,
    -- The Message-ID header: a mail server that delivers the same message
    -- twice (it retries when it did not hear our answer) is recorded once.
    message_id       text,
    object_key       text NOT NULL,
    size_bytes       bigint NOT NULL CHECK (size_bytes >= 0),
    -- Why the reply's files are held for triage, if they are.
    flag             text CHECK (flag IN ('unknown_sender', 'request_closed')),
    status           text NOT NULL CHECK (status IN ('received', 'filed', 'failed')),
    attachment_count integer,
    -- Attachments not filed (too large, empty), with why: [{file_name, reason}].
    skipped          jsonb NOT NULL DEFAULT '[]',
    error            text,
    received_at      timestamptz NOT NULL,
    filed_at         timestamptz
);
CREATE INDEX supplier_request_replies_request_idx ON supplier_request_replies (request_id, received_at);
CREATE UNIQUE INDEX supplier_request_replies_once ON supplier_request_replies (request_id, message_id) WHERE message_id IS NOT NULL;

ALTER TABLE supplier_request_documents
    ADD COLUMN reply_id uuid REFERENCES supplier_request_replies (id),
    ADD COLUMN flag text CHECK (flag IN ('unknown_sender', 'request_closed')),
    ADD CONSTRAINT supplier_request_documents_flag CHECK (flagged = (flag IS NOT NULL));
