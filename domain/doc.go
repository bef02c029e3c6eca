// Package domain is the kernel every area of the domain stands on: the
// tenant scope (Tenant, Find, NewID), the error kinds and the one mapping
// of database constraints onto them, optimistic revisions, events and the
// outbox, the audit entry, the durable workflow start, compliance issues
// and references to other records. It knows no area: an area's models,
// commands and events live in its own package under domain/, and a layers
// test (api/layers_test.go) keeps each area above the ones it may use.
package domain
