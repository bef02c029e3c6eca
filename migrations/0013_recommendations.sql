-- Packing recommendations look for the smallest boxes that hold a volume:
-- this index hands the organization's active, fully dimensioned items over
-- in inner-volume order from the needed volume up, so a recommendation
-- reads only the first boxes large enough, however big the catalogue.
CREATE INDEX catalog_items_inner_volume ON catalog_items
    (organization_id, (inner_length_mm * inner_width_mm * inner_height_mm), mass_g)
    WHERE status = 'active'
      AND inner_length_mm IS NOT NULL AND inner_width_mm IS NOT NULL AND inner_height_mm IS NOT NULL;
