// Package records holds the documentary PPWR records: authority requests,
// deposit schemes, refill stations, re-use systems with their statistics,
// and annual EPR reports.
package records
