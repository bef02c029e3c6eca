-- Documents and evidence: documents with their immutable file versions,
-- the text of each PDF page, evidence proposals citing a page, and the
-- traceability links from packaging items to approved versions.

CREATE TABLE documents (
    id              uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    document_type   text NOT NULL,
    title           text NOT NULL CHECK (btrim(title) <> ''),
    -- The packaging item the document is about and the supplier it
    -- comes from, both optional.
    catalog_item_id uuid REFERENCES catalog_items (id),
    party_id        uuid REFERENCES parties (id),
    valid_from      date,
    valid_until     date CHECK (valid_until >= valid_from),
    language        text,
    -- Set when the service rendered the document from an item's data
    -- version; such a document is a draft nobody signed.
    generated_kind  text,
    version_count   integer NOT NULL DEFAULT 0,
    revision        integer NOT NULL DEFAULT 1,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX documents_org_idx ON documents (organization_id, id);
CREATE INDEX documents_item_idx ON documents (catalog_item_id) WHERE catalog_item_id IS NOT NULL;
CREATE INDEX documents_party_idx ON documents (party_id) WHERE party_id IS NOT NULL;

CREATE TABLE document_versions (
    id                 uuid PRIMARY KEY,
    organization_id    uuid NOT NULL REFERENCES organizations (id),
    document_id        uuid NOT NULL REFERENCES documents (id),
    version            integer NOT NULL CHECK (version > 0),
    file_name          text NOT NULL,
    object_key         text NOT NULL,
    size_bytes         bigint NOT NULL CHECK (size_bytes >= 0),
    sha256             text NOT NULL,
    -- The type sniffed from the content by processing; until then, none.
    content_type       text,
    processing_status  text NOT NULL,
    -- Why a version was quarantined or failed: a message key and its
    -- arguments.
    processing_reason  text,
    processing_detail  text,
    page_count         integer,
    processed_at       timestamptz,
    review_status      text NOT NULL,
    review_reason      text,
    reviewed_by        uuid,
    reviewed_at        timestamptz,
    uploaded_by        uuid,
    analysis_count     integer NOT NULL DEFAULT 0,
    revision           integer NOT NULL DEFAULT 1,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (document_id, version)
);
CREATE INDEX document_versions_org_idx ON document_versions (organization_id, id);

-- The text of each page of a PDF version as extracted, exactly: evidence
-- quotes it.
CREATE TABLE document_pages (
    document_version_id uuid NOT NULL REFERENCES document_versions (id),
    page                integer NOT NULL CHECK (page > 0),
    organization_id     uuid NOT NULL,
    has_text            boolean NOT NULL,
    text                text NOT NULL,
    PRIMARY KEY (document_version_id, page)
);

CREATE TABLE evidence_proposals (
    id                  uuid PRIMARY KEY,
    organization_id     uuid NOT NULL REFERENCES organizations (id),
    document_version_id uuid NOT NULL REFERENCES document_versions (id),
    catalog_item_id     uuid NOT NULL REFERENCES catalog_items (id),
    component_id        uuid REFERENCES catalog_item_components (id),
    code                text NOT NULL,
    value               numeric NOT NULL,
    unit                text NOT NULL,
    method              text,
    result              text,
    laboratory_report_version_id uuid REFERENCES document_versions (id),
    source_page         integer NOT NULL,
    source_text         text NOT NULL,
    -- `analysis` (with the run that found it) or `manual`.
    origin              text NOT NULL,
    analysis_run        integer,
    status              text NOT NULL,
    accepted_value      numeric,
    decision_note       text,
    decided_by          uuid,
    decided_at          timestamptz,
    created_by          uuid,
    revision            integer NOT NULL DEFAULT 1,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX evidence_proposals_org_idx ON evidence_proposals (organization_id, id);
CREATE INDEX evidence_proposals_item_idx ON evidence_proposals (catalog_item_id, id);
-- An analysis run proposes each finding once, however often its activity
-- is retried.
CREATE UNIQUE INDEX evidence_proposals_run_finding ON evidence_proposals
    (document_version_id, analysis_run, code, source_page, source_text, value)
    WHERE origin = 'analysis';

CREATE TABLE traceability_links (
    id                  uuid PRIMARY KEY,
    organization_id     uuid NOT NULL REFERENCES organizations (id),
    catalog_item_id     uuid NOT NULL REFERENCES catalog_items (id),
    document_version_id uuid NOT NULL REFERENCES document_versions (id),
    document_id         uuid NOT NULL REFERENCES documents (id),
    link_type           text NOT NULL,
    catalog_revision    integer NOT NULL,
    created_by          uuid,
    created_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (catalog_item_id, document_version_id, link_type)
);
CREATE INDEX traceability_links_org_idx ON traceability_links (organization_id, id);
