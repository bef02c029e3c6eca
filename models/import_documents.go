package models

// DocumentMetadataImportColumns are the columns of a document_metadata
// import: the document and the metadata it gets.
var DocumentMetadataImportColumns = []string{"document", "title", "documentType", "issuer", "issuedOn", "validUntil"}
