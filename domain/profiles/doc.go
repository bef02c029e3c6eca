// Package profiles holds the organization's compliance profile: per
// Member State, the facts about the operator that its own PPWR
// obligations read (refill, re-use targets, HORECA duties), declared by
// register.ComplianceProfile and reviewed once, with four eyes, like
// register entries. An entry never changes after it is created except
// for its review decision; a new entry for a country supersedes the
// previous one.
package profiles
