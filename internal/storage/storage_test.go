package storage_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/storage"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A multi-part-sized object goes through the real S3 server and comes back
// byte for byte, with its content type.
func TestPutGetDeleteRoundTrip(t *testing.T) {
	store := testenv.Storage(t)
	ctx := context.Background()
	payload := make([]byte, 9<<20) // above the 8 MiB part size: a multipart upload
	_, _ = rand.Read(payload)

	// io.MultiReader hides the length, as a streamed upload would.
	require.NoError(t, store.Put(ctx, "org/x/documents/a/b", io.MultiReader(bytes.NewReader(payload)), "application/pdf"))

	obj, err := store.Get(ctx, "org/x/documents/a/b")
	require.NoError(t, err)
	defer obj.Body.Close()
	got, err := io.ReadAll(obj.Body)
	require.NoError(t, err)
	assert.Equal(t, payload, got)
	assert.Equal(t, "application/pdf", obj.ContentType)

	require.NoError(t, store.Delete(ctx, "org/x/documents/a/b"))
	_, err = store.Get(ctx, "org/x/documents/a/b")
	assert.ErrorIs(t, err, storage.ErrNotFound)
	assert.NoError(t, store.Delete(ctx, "org/x/documents/a/b"), "deleting a missing key is not an error")
}

// A body that can seek goes up from where it stands, in one request.
func TestPutSendsASeekableBodyFromItsPosition(t *testing.T) {
	store := testenv.Storage(t)
	ctx := context.Background()
	f, err := os.CreateTemp(t.TempDir(), "body")
	require.NoError(t, err)
	defer f.Close()
	payload := make([]byte, 17<<20) // above the transfer manager's multipart threshold
	_, _ = rand.Read(payload)
	_, err = f.Write(payload)
	require.NoError(t, err)
	_, err = f.Seek(1000, io.SeekStart)
	require.NoError(t, err)

	require.NoError(t, store.Put(ctx, "org/x/exports/"+t.Name(), f, "application/json"))

	obj, err := store.Get(ctx, "org/x/exports/"+t.Name())
	require.NoError(t, err)
	defer obj.Body.Close()
	got, err := io.ReadAll(obj.Body)
	require.NoError(t, err)
	assert.Equal(t, payload[1000:], got)
	assert.Equal(t, "application/json", obj.ContentType)
}

func TestPingFailsForUnreachableStore(t *testing.T) {
	store := storage.New(storage.Options{Endpoint: "http://127.0.0.1:1", Region: "us-east-1", Bucket: "b", AccessKeyID: "a", SecretAccessKey: "s"})
	assert.Error(t, store.Ping(context.Background()))
}

// A quarantined object leaves its key for one under the quarantine prefix,
// which Get never opens; a retried move converges on the same key.
func TestQuarantineMovesTheObjectOutOfReach(t *testing.T) {
	store := testenv.Storage(t)
	ctx := context.Background()
	key := "org/q/documents/a/" + t.Name()
	require.NoError(t, store.Put(ctx, key, bytes.NewReader([]byte("unsafe")), "application/octet-stream"))

	moved, err := store.Quarantine(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, storage.QuarantinePrefix+key, moved)
	_, err = store.Get(ctx, key)
	assert.ErrorIs(t, err, storage.ErrNotFound, "the original key is empty")
	_, err = store.Get(ctx, moved)
	assert.ErrorIs(t, err, storage.ErrQuarantined, "no reader opens the quarantine")
	exists, err := store.Exists(ctx, moved)
	require.NoError(t, err)
	assert.True(t, exists, "the bytes are kept for an operator")

	again, err := store.Quarantine(ctx, key)
	require.NoError(t, err, "a retry after the move finds it done")
	assert.Equal(t, moved, again)
	again, err = store.Quarantine(ctx, moved)
	require.NoError(t, err)
	assert.Equal(t, moved, again, "a quarantined key stays")
	_, err = store.Quarantine(ctx, "org/q/documents/a/never-stored")
	assert.ErrorIs(t, err, storage.ErrNotFound)
}
