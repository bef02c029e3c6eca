// Package catalog is the packaging catalogue: items with their revisions
// and frozen data versions, components, markets, folders, families,
// parties and code mappings, the item lock other areas take while citing
// an item, its unit conversions, and the trigger of an item's assessment
// refresh, which every change an assessment reads records.
package catalog
