package models

import (
	"bytes"
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"
)

// IdempotencyTTL is how long a stored response answers replays; the spec
// asks for at least 24 hours.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyRecord is the stored outcome of a request sent with an
// Idempotency-Key.
type IdempotencyRecord struct {
	APIKeyID        uuid.UUID `gorm:"type:uuid;primaryKey;column:api_key_id"`
	Key             string    `gorm:"primaryKey"`
	Operation       string
	Fingerprint     []byte
	ResponseStatus  int
	ResponseHeaders datatypes.JSONMap `gorm:"type:jsonb"`
	ResponseBody    []byte
	CreatedAt       time.Time
	ExpiresAt       time.Time
}

// TableName maps the record onto its table.
func (IdempotencyRecord) TableName() string { return "idempotency_keys" }

// ClaimIdempotencyKey reserves (keyID, key) inside tx. It returns nil when
// the caller now owns the key and must execute the request, or the stored
// record of an earlier request. Because the reservation is an INSERT in the
// request's own transaction, a concurrent duplicate blocks on the unique
// index until the first request commits (and then sees its stored response)
// or rolls back (and then executes itself): it never runs twice.
func ClaimIdempotencyKey(ctx context.Context, tx *gorm.DB, keyID uuid.UUID, key, operation string, fingerprint []byte) (*IdempotencyRecord, error) {
	// An expired record is taken over in place, so a key can be reused once
	// its retention has passed even before housekeeping deletes it.
	res := tx.WithContext(ctx).Exec(`
INSERT INTO idempotency_keys (api_key_id, key, operation, fingerprint, response_status, response_body, expires_at)
VALUES (?, ?, ?, ?, 0, '', now() + ?::bigint * interval '1 second')
ON CONFLICT (api_key_id, key) DO UPDATE
   SET operation = EXCLUDED.operation, fingerprint = EXCLUDED.fingerprint,
       response_status = 0, response_body = '', response_headers = '{}',
       created_at = now(), expires_at = EXCLUDED.expires_at
 WHERE idempotency_keys.expires_at <= now()`,
		keyID, key, operation, fingerprint, int64(IdempotencyTTL.Seconds()))
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 1 {
		return nil, nil
	}
	var rec IdempotencyRecord
	if err := tx.WithContext(ctx).Where("api_key_id = ? AND key = ?", keyID, key).First(&rec).Error; err != nil {
		return nil, err
	}
	return &rec, nil
}

// SameRequest reports whether a stored record was made by the same request.
func (r *IdempotencyRecord) SameRequest(operation string, fingerprint []byte) bool {
	return r.Operation == operation && bytes.Equal(r.Fingerprint, fingerprint)
}

// CompleteIdempotencyKey stores the response of the request that claimed the key.
func CompleteIdempotencyKey(ctx context.Context, tx *gorm.DB, keyID uuid.UUID, key string, status int, headers map[string]any, body []byte) error {
	return tx.WithContext(ctx).Model(&IdempotencyRecord{}).
		Where("api_key_id = ? AND key = ?", keyID, key).
		Updates(map[string]any{"response_status": status, "response_headers": datatypes.JSONMap(headers), "response_body": body}).Error
}

// PurgeExpiredIdempotencyKeys deletes records past their retention.
func PurgeExpiredIdempotencyKeys(ctx context.Context, db *gorm.DB) (int64, error) {
	res := db.WithContext(ctx).Where("expires_at <= now()").Delete(&IdempotencyRecord{})
	return res.RowsAffected, res.Error
}
