// Package documents holds documents and their versions (upload,
// processing state, review), evidence proposals and their decisions,
// traceability links and generated documents.
package documents
