-- Supplier collaboration: requests to suppliers with their lines, the
-- files that answer them, and the compliance issues the service opens for
-- problems that need a person.

CREATE TABLE supplier_requests (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    party_id        uuid NOT NULL REFERENCES parties (id),
    recipients      text[] NOT NULL CHECK (cardinality(recipients) > 0),
    language        text NOT NULL CHECK (language IN ('pl', 'en')),
    due_on          date NOT NULL,
    message         text NOT NULL DEFAULT '',
    status          text NOT NULL,
    delivery_status text NOT NULL,
    delivery_error  text,
    message_id      text,
    -- Opaque part of the request's Reply-To address.
    reply_token     text NOT NULL UNIQUE,
    line_count      integer NOT NULL,
    -- How often it was sent: a failed delivery can be sent again.
    send_count      integer NOT NULL DEFAULT 0,
    created_by      uuid,
    sent_at         timestamptz,
    completed_at    timestamptz,
    cancelled_at    timestamptz,
    revision        integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX supplier_requests_org_idx ON supplier_requests (organization_id, id);
CREATE INDEX supplier_requests_party_idx ON supplier_requests (party_id);

-- Every delivery attempt of a request's e-mail. A row is written just
-- before the server is told to accept the message (in_flight) and
-- settled after; a worker that dies in between leaves it in_flight, and
-- the retry then records the message as sent instead of sending it twice.
CREATE TABLE supplier_request_deliveries (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    request_id      uuid NOT NULL REFERENCES supplier_requests (id),
    send            integer NOT NULL,
    message_id      text NOT NULL,
    outcome         text NOT NULL CHECK (outcome IN ('in_flight', 'sent', 'unconfirmed', 'failed')),
    smtp_error      text,
    started_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz
);
CREATE INDEX supplier_request_deliveries_request_idx ON supplier_request_deliveries (request_id, send);

CREATE TABLE supplier_request_lines (
    id                uuid PRIMARY KEY,
    organization_id   uuid NOT NULL REFERENCES organizations (id),
    request_id        uuid NOT NULL REFERENCES supplier_requests (id),
    number            integer NOT NULL,
    catalog_item_id   uuid NOT NULL REFERENCES catalog_items (id),
    component_id      uuid REFERENCES catalog_item_components (id),
    document_type     text,
    measurement_codes text[] NOT NULL DEFAULT '{}',
    note              text,
    status            text NOT NULL,
    review_reason     text,
    reviewed_by       uuid,
    reviewed_at       timestamptz,
    UNIQUE (request_id, number),
    CHECK (document_type IS NOT NULL OR cardinality(measurement_codes) > 0)
);
CREATE INDEX supplier_request_lines_item_idx ON supplier_request_lines (catalog_item_id);

-- Files that answer a request: by e-mail or attached through the API, to
-- a line or, when no line can be told, to the request for triage.
CREATE TABLE supplier_request_documents (
    request_id          uuid NOT NULL REFERENCES supplier_requests (id),
    document_version_id uuid NOT NULL REFERENCES document_versions (id),
    organization_id     uuid NOT NULL,
    line_id             uuid REFERENCES supplier_request_lines (id),
    source              text NOT NULL CHECK (source IN ('email', 'api')),
    sender              text,
    -- Kept but set apart: arrived after cancellation, or from an address
    -- that is not a recipient.
    flagged             boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (request_id, document_version_id)
);

CREATE TABLE compliance_issues (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    kind            text NOT NULL,
    severity        text NOT NULL CHECK (severity IN ('low', 'medium', 'high')),
    status          text NOT NULL CHECK (status IN ('open', 'resolved')),
    subject_type    text NOT NULL,
    subject_id      uuid NOT NULL,
    catalog_item_id uuid,
    -- The message, rendered in the reader's language.
    message_key     text NOT NULL,
    message_args    jsonb NOT NULL DEFAULT '[]',
    resolution_key  text,
    opened_at       timestamptz NOT NULL DEFAULT now(),
    resolved_at     timestamptz
);
CREATE INDEX compliance_issues_org_idx ON compliance_issues (organization_id, id);
-- A problem is open once, however often it is found.
CREATE UNIQUE INDEX compliance_issues_open_once ON compliance_issues (organization_id, kind, subject_id) WHERE status = 'open';
