package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	now    = time.Unix(1_790_000_000, 0)
	body   = []byte(`{"id":"e1","type":"catalog_item.updated"}`)
	secret = "whsec_current"
)

// The v1 value is exactly the documented HMAC, keyed with the whole secret
// string, so a receiver in any language can reproduce it.
func TestSignMatchesTheDocumentedScheme(t *testing.T) {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte("1790000000." + string(body)))
	assert.Equal(t, "t=1790000000,v1="+hex.EncodeToString(h.Sum(nil)), Sign([]string{secret}, body, now))
}

func TestVerify(t *testing.T) {
	header := Sign([]string{secret}, body, now)
	assert.NoError(t, Verify(secret, header, body, now))
	assert.NoError(t, Verify(secret, header, body, now.Add(Tolerance)), "at the edge of the tolerance, late")
	assert.NoError(t, Verify(secret, header, body, now.Add(-Tolerance)), "and early")
	assert.ErrorIs(t, Verify(secret, header, body, now.Add(Tolerance+time.Second)), ErrTimestamp)
	assert.ErrorIs(t, Verify(secret, header, body, now.Add(-Tolerance-time.Second)), ErrTimestamp)
	assert.ErrorIs(t, Verify("whsec_other", header, body, now), ErrMismatch)
	assert.ErrorIs(t, Verify(secret, header, append([]byte{' '}, body...), now), ErrMismatch, "the raw body is signed, byte for byte")
}

// During a rotation the header carries a signature per secret, and a
// receiver holding either one accepts it.
func TestVerifyDuringRotation(t *testing.T) {
	header := Sign([]string{"whsec_new", "whsec_old"}, body, now)
	assert.Equal(t, 2, strings.Count(header, "v1="))
	assert.NoError(t, Verify("whsec_new", header, body, now))
	assert.NoError(t, Verify("whsec_old", header, body, now))
	assert.ErrorIs(t, Verify("whsec_other", header, body, now), ErrMismatch)
}

func TestVerifyRejectsMalformedHeaders(t *testing.T) {
	valid := Sign([]string{secret}, body, now)
	sig := valid[strings.Index(valid, "v1="):]
	for _, h := range []string{"", "t=1790000000", sig, "t=abc," + sig, "t=1790000000,v1=zz", "garbage", "t=1,t=2," + sig} {
		assert.ErrorIs(t, Verify(secret, h, body, now), ErrMalformed, h)
	}
	require.NoError(t, Verify(secret, valid+",v2=ignored", body, now), "unknown schemes are ignored")
}
