package domain

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"ppwr/internal/input"
)

// Domain errors. The HTTP kernel maps each kind to one status; handlers
// never inspect driver errors.
var (
	// ErrNotFound: the record does not exist in the organization.
	ErrNotFound = errors.New("record not found")
	// ErrRevisionConflict: the record changed since the client read it.
	ErrRevisionConflict = errors.New("revision conflict")
)

// MissingError is ErrNotFound naming the record: the operator names
// records of any organization by id, and is told which one is missing.
type MissingError struct {
	Record string // what the record is, "import"
	ID     uuid.UUID
	// Organization, unless nil, is the organization the record was
	// looked for in.
	Organization uuid.UUID
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("%s %s does not exist", e.Record, e.ID)
	if e.Organization != uuid.Nil {
		msg += " in organization " + e.Organization.String()
	}
	return msg
}

func (e *MissingError) Unwrap() error { return ErrNotFound }

// RuleError is a business rule that refuses a well-formed request (422),
// with a stable code for clients, a message key and, when the rule is
// about particular fields, their messages.
type RuleError struct {
	Code   string
	Key    string
	Fields []input.FieldError
}

func (e *RuleError) Error() string { return e.Code }

// Is matches rule errors by code, so a rule answered with its fields
// (On) is still the rule.
func (e *RuleError) Is(target error) bool {
	t, ok := target.(*RuleError)
	return ok && t.Code == e.Code
}

// On is the rule answered with a message on field.
func (e *RuleError) On(field, key string, args ...any) *RuleError {
	out := *e
	out.Fields = append(slices.Clone(e.Fields), input.FieldError{Field: field, Key: key, Args: args})
	return &out
}

// ConflictError refuses a request that collides with the current state
// (409): a stale configuration, an order already packed. Re-reading the
// state resolves it, as it does a revision conflict.
type ConflictError struct {
	Code string
	Key  string
}

func (e *ConflictError) Error() string { return e.Code }

// ForbiddenError refuses an actor an action an organization policy
// reserves to others (403), such as approving one's own upload under
// dual control.
type ForbiddenError struct {
	Code string
	Key  string
}

func (e *ForbiddenError) Error() string { return e.Code }

// Business rules of the catalogue.
var (
	ErrItemArchived   = &RuleError{Code: "item_archived", Key: "error.item_archived"}
	ErrFolderNotEmpty = &RuleError{Code: "folder_not_empty", Key: "error.folder_not_empty"}
	// ErrValueNotStorable: a value the database cannot keep (an encoding it
	// refuses, a number out of its range) that binding let through.
	ErrValueNotStorable = &RuleError{Code: "validation_failed", Key: "error.value_not_storable"}
)

// constraintErrors maps a constraint, on the table whose change violated
// it, to the domain error it means. This and FromDatabase are the one place
// that knows the schema's constraint names.
var constraintErrors = map[[2]string]error{
	{"catalog_items_organization_id_internal_code_key", "catalog_items"}: input.Invalidf("internalCode", "field.taken"),
	{"catalog_items_internal_code_check", "catalog_items"}:               input.Invalidf("internalCode", "field.required"),
	{"catalog_items_name_check", "catalog_items"}:                        input.Invalidf("name", "field.required"),
	{"packaging_systems_code_key", "packaging_systems"}:                  input.Invalidf("code", "field.taken"),
	{"reuse_systems_organization_id_code_key", "reuse_systems"}:          input.Invalidf("code", "field.taken"),
	{"assessments_run_item_key", "assessments"}:                          ErrRunItemDone,
	{"parcel_claims_pkey", "parcel_claims"}:                              ErrOrderReferenceUsed,
	// Deleting a folder that an item references without having locked it.
	{"catalog_items_folder_id_fkey", "folders"}: ErrFolderNotEmpty,
	{"folders_parent_id_fkey", "folders"}:       ErrFolderNotEmpty,
}

// FromDatabase turns a database error that a client's request caused into
// its domain error; other errors are returned unchanged.
func FromDatabase(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	if mapped, ok := constraintErrors[[2]string{pgErr.ConstraintName, pgErr.TableName}]; ok {
		return mapped
	}
	switch pgErr.Code {
	case "22021", "22P05", "22001", "22003", "22P02":
		// Invalid byte sequence, untranslatable character, string too long,
		// numeric out of range, invalid text representation.
		return ErrValueNotStorable
	}
	return err
}

// errRunItemDone: the run already assessed the item (a retried batch).
var ErrRunItemDone = errors.New("the run already assessed the item")

// ErrOrderReferenceUsed refuses a second packing of one parcel.
var ErrOrderReferenceUsed = &ConflictError{Code: "order_reference_used", Key: "error.order_reference_used"}
