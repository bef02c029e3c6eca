// Package packing holds packaging systems (sets) and their recipes,
// reservations with their expiry, packing consumptions, parcels and the
// packing recommendation.
package packing
