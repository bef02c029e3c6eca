package models_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/testenv"
	"ppwr/models"
)

// The README's catalogue is what integrators subscribe from; it must list
// every type and nothing else.
func TestReadmeListsTheEventCatalogue(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	readme := string(raw)
	for _, eventType := range models.EventTypes {
		assert.Contains(t, readme, "`"+eventType+"`", eventType)
	}
}

func TestNewEventRejectsUnknownTypesAndWholeResources(t *testing.T) {
	db := testenv.DB(t)
	ctx := context.Background()
	org, err := models.CreateOrganization(ctx, db, "Emit", "emit-"+uuid.NewString())
	require.NoError(t, err)

	_, err = models.NewEvent(org.ID, "catalog_item.exploded", nil)
	assert.ErrorContains(t, err, "not in the event catalogue")
	_, err = models.NewEvent(org.ID, "catalog_item.updated", map[string]any{"item": map[string]any{"name": "x"}})
	assert.ErrorContains(t, err, "ids and scalars only")

	e, err := models.NewEvent(org.ID, "catalog_item.updated", map[string]any{"catalog_item_id": uuid.Nil, "revision": 3})
	require.NoError(t, err)
	require.NoError(t, db.Create(e).Error)
	assert.True(t, strings.HasPrefix(e.Body, `{"id":"`+e.ID.String()+`","type":"catalog_item.updated","schema_version":1,"organization_id":"`+org.ID.String()+`"`))
	var stored models.Event
	require.NoError(t, db.First(&stored, "id = ?", e.ID).Error)
	assert.Equal(t, e.Body, stored.Body, "the stored body is byte for byte what every delivery sends")
	assert.Nil(t, stored.RelayedAt)
}
