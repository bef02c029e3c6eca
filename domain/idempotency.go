package domain

import (
	"bytes"
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
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
	ResponseHeaders datatypes.JSONType[map[string]string] `gorm:"type:jsonb"`
	ResponseBody    []byte
	CreatedAt       time.Time
	ExpiresAt       time.Time
}

// TableName maps the record onto its table.
func (IdempotencyRecord) TableName() string { return "idempotency_keys" }

// NewIdempotencyRecord is the stored answer of a request. The pipeline
// inserts it in the request's own transaction, together with the request's
// effects: the effects commit exactly when the answer does, and a duplicate
// that ran concurrently fails on the primary key, rolls back and replays.
func NewIdempotencyRecord(keyID uuid.UUID, key, operation string, fingerprint []byte, status int, headers map[string]string, body []byte) *IdempotencyRecord {
	now := time.Now().UTC()
	return &IdempotencyRecord{
		APIKeyID: keyID, Key: key, Operation: operation, Fingerprint: fingerprint,
		ResponseStatus: status, ResponseHeaders: datatypes.NewJSONType(headers), ResponseBody: body,
		CreatedAt: now, ExpiresAt: now.Add(IdempotencyTTL),
	}
}

// KeepIdempotencyRecord stores rec unless the key already has an answer,
// which wins; it reports whether rec was stored. A refusal changes nothing,
// so its answer is kept on its own.
func KeepIdempotencyRecord(ctx context.Context, db *gorm.DB, rec *IdempotencyRecord) (bool, error) {
	res := db.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(rec)
	return res.RowsAffected == 1, res.Error
}

// FindIdempotencyRecord returns the stored answer for (keyID, key), or nil.
// A record past its retention still answers until housekeeping deletes it,
// at most an hour later.
func FindIdempotencyRecord(ctx context.Context, db *gorm.DB, keyID uuid.UUID, key string) (*IdempotencyRecord, error) {
	var found []IdempotencyRecord
	if err := db.WithContext(ctx).Where("api_key_id = ? AND key = ?", keyID, key).Limit(1).Find(&found).Error; err != nil || len(found) == 0 {
		return nil, err
	}
	return &found[0], nil
}

// SameRequest reports whether a stored record was made by the same request.
func (r *IdempotencyRecord) SameRequest(operation string, fingerprint []byte) bool {
	return r.Operation == operation && bytes.Equal(r.Fingerprint, fingerprint)
}

// PurgeExpiredIdempotencyKeys deletes records past their retention.
func PurgeExpiredIdempotencyKeys(ctx context.Context, db *gorm.DB) (int64, error) {
	res := db.WithContext(ctx).Where("expires_at <= now()").Delete(&IdempotencyRecord{})
	return res.RowsAffected, res.Error
}
