package webhooks_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/webhooks"
	"ppwr/internal/testenv"
)

// The README's catalogue is what integrators subscribe from; it must list
// every type and nothing else.
func TestReadmeListsTheEventCatalogue(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	require.NoError(t, err)
	readme := string(raw)
	for _, eventType := range webhooks.EventTypes() {
		assert.Contains(t, readme, "`"+eventType+"`", eventType)
	}
}

func TestMain(m *testing.M) { testenv.Main(m) }

// An event's body is final when it is built: the stored row is byte for
// byte what every delivery sends, with the payload's typed data.
func TestNewEventBody(t *testing.T) {
	db := testenv.DB(t)
	ctx := context.Background()
	org, err := accounts.CreateOrganization(ctx, db, "Emit", "emit-"+uuid.NewString())
	require.NoError(t, err)

	e, err := domain.NewEvent(org.ID, catalog.CatalogItemUpdated{CatalogItemID: uuid.Nil, Revision: 3})
	require.NoError(t, err)
	require.NoError(t, db.Create(e).Error)
	assert.Equal(t, "catalog_item.updated", e.Type)
	assert.True(t, strings.HasPrefix(e.Body, `{"id":"`+e.ID.String()+`","type":"catalog_item.updated","schema_version":1,"organization_id":"`+org.ID.String()+`"`))
	assert.True(t, strings.HasSuffix(e.Body, `"data":{"catalog_item_id":"00000000-0000-0000-0000-000000000000","revision":3}}`), e.Body)
	var stored domain.Event
	require.NoError(t, db.First(&stored, "id = ?", e.ID).Error)
	assert.Equal(t, e.Body, stored.Body, "the stored body is byte for byte what every delivery sends")
	assert.Nil(t, stored.RelayedAt)
}

// Every type of the catalogue is named once, and its data holds ids and
// scalars only.
func TestEventCatalogueIsUniqueAndFlat(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range webhooks.EventCatalogue {
		assert.False(t, seen[p.EventType()], "%s is listed twice", p.EventType())
		seen[p.EventType()] = true
		v := reflect.TypeOf(p)
		require.Equal(t, reflect.Struct, v.Kind(), p.EventType())
		for i := range v.NumField() {
			f := v.Field(i).Type
			if f.Kind() == reflect.Pointer {
				f = f.Elem()
			}
			assert.Contains(t, []reflect.Kind{reflect.String, reflect.Int, reflect.Bool, reflect.Array}, f.Kind(),
				"%s.%s: events carry ids and scalars only", p.EventType(), v.Field(i).Name)
		}
	}
}

// An event's body is its EventEnvelope as encoding/json writes it, for
// every type of the catalogue.
func TestNewEventBodyIsItsEnvelope(t *testing.T) {
	org := uuid.New()
	for _, p := range webhooks.EventCatalogue {
		e, err := domain.NewEvent(org, p)
		require.NoError(t, err)
		want, err := json.Marshal(domain.EventEnvelope{ID: e.ID, Type: e.Type, SchemaVersion: domain.EventSchemaVersion,
			OrganizationID: org, CreatedAt: e.CreatedAt, Data: p})
		require.NoError(t, err)
		assert.Equal(t, string(want), e.Body, p.EventType())
	}
}
