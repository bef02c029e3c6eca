package models

// PartnerImportColumns are the columns of a partners import: the fields of
// a new party.
var PartnerImportColumns = []string{"name", "roles", "country", "tax_id", "email", "address"}
