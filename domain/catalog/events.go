package catalog

import (
	"github.com/google/uuid"

	"ppwr/domain"
)

type CatalogItemCreated domain.ItemRevision

type CatalogItemUpdated domain.ItemRevision

type CatalogItemArchived domain.ItemRevision

type CatalogItemRestored domain.ItemRevision

type ComponentCreated domain.ItemRevision

type MarketsChanged domain.ItemRevision

func (CatalogItemCreated) EventType() string { return "catalog_item.created" }

func (CatalogItemUpdated) EventType() string { return "catalog_item.updated" }

func (CatalogItemArchived) EventType() string { return "catalog_item.archived" }

func (CatalogItemRestored) EventType() string { return "catalog_item.restored" }

func (ComponentCreated) EventType() string { return "component.created" }

func (MarketsChanged) EventType() string { return "markets.changed" }

// FamilyRevision is the data of the family events.
type FamilyRevision struct {
	FamilyID uuid.UUID `json:"family_id"`
	Revision int       `json:"revision"`
}

type FamilyCreated FamilyRevision

type FamilyUpdated FamilyRevision

func (FamilyCreated) EventType() string { return "family.created" }

func (FamilyUpdated) EventType() string { return "family.updated" }

// FolderPlacement is the data of folder.created and folder.updated.
type FolderPlacement struct {
	FolderID uuid.UUID  `json:"folder_id"`
	ParentID *uuid.UUID `json:"parent_id"`
	Revision int        `json:"revision"`
}

type FolderCreated FolderPlacement

type FolderUpdated FolderPlacement

func (FolderCreated) EventType() string { return "folder.created" }

func (FolderUpdated) EventType() string { return "folder.updated" }

// FolderDeleted announces a folder's deletion at its last revision.
type FolderDeleted struct {
	FolderID uuid.UUID `json:"folder_id"`
	Revision int       `json:"revision"`
}

func (FolderDeleted) EventType() string { return "folder.deleted" }

// PartyCreated announces a new business partner.
type PartyCreated struct {
	PartyID uuid.UUID `json:"party_id"`
}

func (PartyCreated) EventType() string { return "party.created" }
