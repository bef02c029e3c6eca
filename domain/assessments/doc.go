// Package assessments holds assessments of an item against a rule set,
// bulk assessment runs, staleness, and the item's compliance summary.
package assessments
