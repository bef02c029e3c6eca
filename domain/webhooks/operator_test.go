package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/webhooks"
	"ppwr/internal/input"
	"ppwr/internal/testenv"
)

// An endpoint is registered only at an allowed URL of an existing
// organization; disabling it twice is one change, audited once.
func TestOperatorEndpointCommands(t *testing.T) {
	db, ctx := testenv.DB(t), context.Background()
	org, err := accounts.CreateOrganization(ctx, db, "Endpoints", "endpoints-"+uuid.NewString()[:8])
	require.NoError(t, err)
	in := webhooks.NewEndpoint{OrganizationID: org.ID, URL: "http://127.0.0.1:9/hook", Events: []string{webhooks.AllEvents}}

	_, err = webhooks.OperatorAddEndpoint(ctx, db, in)
	var invalid *input.Invalid
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, []input.FieldError{{Field: "url", Key: "field.webhook_url_insecure"}}, invalid.Fields)
	_, err = webhooks.OperatorAddEndpoint(ctx, db, webhooks.NewEndpoint{OrganizationID: uuid.New(), URL: "https://hooks.example.test"})
	assert.ErrorIs(t, err, domain.ErrNotFound)
	in.AllowHTTPLoopback = true
	e, err := webhooks.OperatorAddEndpoint(ctx, db, in)
	require.NoError(t, err)
	listed, err := webhooks.ListEndpoints(ctx, db, org.ID)
	require.NoError(t, err)
	require.Len(t, listed, 1, "the refused endpoint was not stored")
	assert.Equal(t, e.Secret, listed[0].Secret)

	for range 2 {
		disabled, err := webhooks.OperatorDisableEndpoint(ctx, db, e.ID)
		require.NoError(t, err)
		assert.Equal(t, webhooks.EndpointDisabled, disabled.Status)
	}
	var n int64
	require.NoError(t, db.Table("audit_log").Where("operation = ? AND record_id = ?", "admin.webhook.disable", e.ID).Count(&n).Error)
	assert.Equal(t, int64(1), n)

	rotated, err := webhooks.OperatorRotateSecret(ctx, db, e.ID, time.Hour)
	require.NoError(t, err)
	assert.Len(t, rotated.SigningSecrets(time.Now()), 2, "the previous secret signs during the grace")
	missing := uuid.New()
	_, err = webhooks.OperatorRotateSecret(ctx, db, missing, time.Hour)
	assert.EqualError(t, err, "webhook endpoint "+missing.String()+" does not exist")
	_, err = webhooks.RecentDeliveries(ctx, db, missing, 10)
	assert.ErrorIs(t, err, domain.ErrNotFound)
}
