-- Refill stations (PPWR Art. 28, Annex VI Part C): where end users refill
-- their own containers, the products offered, the "rules for refill"
-- information given to them and the hygiene and safety evidence. Listed
-- by GET /ppwr/refill-stations; created by POST /ppwr/refill-stations.
CREATE TABLE refill_stations (
    id                uuid PRIMARY KEY,
    organization_id   uuid NOT NULL REFERENCES organizations (id),
    name              text NOT NULL CHECK (btrim(name) <> ''),
    location          text NOT NULL,
    country_code      text NOT NULL,
    -- Catalogue item ids of the products offered.
    products          jsonb NOT NULL DEFAULT '[]',
    refill_rules      text NOT NULL,
    -- Approved document-version ids of the hygiene and safety evidence.
    hygiene_evidence  jsonb NOT NULL DEFAULT '[]',
    revision          integer NOT NULL DEFAULT 1,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refill_stations_org_idx ON refill_stations (organization_id, id);
