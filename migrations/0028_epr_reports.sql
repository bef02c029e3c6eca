-- Annual EPR reports (PPWR Art. 44(7) and (8)): per organization, Member
-- State and period, the packaging made available there by weight per
-- Annex II packaging category. A report is a snapshot of the period's flows
-- into the market, taken when it is created, plus lines added by hand with
-- a reason; flows changed later never recalculate it. Its internal review
-- approves or rejects it; nothing is filed into a national register.
CREATE TABLE epr_reports (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    country          text NOT NULL,
    year             integer NOT NULL,
    period_from      date NOT NULL,
    period_to        date NOT NULL,
    -- The kinds of flow counted: placed, used or both.
    flow_kinds       jsonb NOT NULL,
    -- Simplified below the threshold of Art. 44(8) on the exact total,
    -- full at or above it; the total moves with every manual line, so the
    -- form is kept with it.
    form             text NOT NULL CHECK (form IN ('simplified', 'full')),
    total_g          numeric NOT NULL CHECK (total_g >= 0),
    flow_count       integer NOT NULL,
    line_count       integer NOT NULL,
    -- What the reviewer should look at (flows without a category), taken
    -- with the flow lines.
    warnings         jsonb NOT NULL,
    review_status    text NOT NULL CHECK (review_status IN ('unreviewed', 'approved', 'rejected')),
    review_reason    text,
    reviewed_by      uuid REFERENCES users (id),
    reviewed_at      timestamptz,
    revision         integer NOT NULL DEFAULT 1,
    created_by       uuid REFERENCES users (id),
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    CHECK (period_from <= period_to
        AND period_from >= make_date(year, 1, 1) AND period_to <= make_date(year, 12, 31)),
    CHECK ((review_status = 'unreviewed') = (reviewed_at IS NULL))
);
CREATE INDEX epr_reports_org_idx ON epr_reports (organization_id, id);

-- A report's lines: one per Annex II category (NULL: the items' accepted
-- packaging classification names none) and material from the flows, and
-- those added by hand, which need a reason. Lines are never changed.
CREATE TABLE epr_report_lines (
    id               uuid PRIMARY KEY,
    organization_id  uuid NOT NULL REFERENCES organizations (id),
    report_id        uuid NOT NULL REFERENCES epr_reports (id),
    source           text NOT NULL CHECK (source IN ('flows', 'manual')),
    category         integer CHECK (category BETWEEN 1 AND 22),
    material_code    text,
    mass_g           numeric NOT NULL CHECK (mass_g >= 0),
    flow_count       integer NOT NULL,
    -- Keys (flow:<uuid>) of the first flows of the line, by date.
    flow_sample      jsonb NOT NULL,
    reason           text,
    created_by       uuid REFERENCES users (id),
    created_at       timestamptz NOT NULL,
    CHECK ((source = 'manual') = (reason IS NOT NULL)),
    CHECK (source = 'flows' OR (category IS NOT NULL AND flow_count = 0))
);
CREATE INDEX epr_report_lines_report_idx ON epr_report_lines (organization_id, report_id, id);
