// Package webhooksig signs and verifies ppwr webhook deliveries. The
// service signs with it; receivers may import it (or port its dozen lines)
// to check a delivery before trusting it.
//
// The header is X-PPWR-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]
// where each v1 is HMAC-SHA256 over "<t>.<raw body>" keyed with a whole
// endpoint secret ("whsec_..." used as is, not decoded). While a secret is
// being rotated the header carries one v1 per valid secret.
package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header is the HTTP header carrying the signature.
const Header = "X-PPWR-Signature"

// Tolerance is the largest accepted difference between the signature's
// timestamp and the receiver's clock, in either direction.
const Tolerance = 300 * time.Second

// Errors returned by Verify.
var (
	ErrMalformed = errors.New("webhooksig: malformed signature header")
	ErrTimestamp = errors.New("webhooksig: timestamp outside the tolerance")
	ErrMismatch  = errors.New("webhooksig: no signature matches")
)

func mac(secret string, t int64, body []byte) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(strconv.FormatInt(t, 10)))
	h.Write([]byte("."))
	h.Write(body)
	return h.Sum(nil)
}

// Sign returns the header value for body at time now, with one v1 per
// secret (the current secret first).
func Sign(secrets []string, body []byte, now time.Time) string {
	t := now.Unix()
	var b strings.Builder
	b.WriteString("t=" + strconv.FormatInt(t, 10))
	for _, s := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(mac(s, t, body)))
	}
	return b.String()
}

// Verify checks header against the raw body with secret at time now: the
// timestamp must be within Tolerance and one v1 must match, compared in
// constant time. Deduplicate on the event id after a successful Verify:
// retries of one event carry the same id and body with a fresh signature.
func Verify(secret, header string, body []byte, now time.Time) error {
	var (
		t     int64
		haveT bool
		sigs  [][]byte
	)
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ErrMalformed
		}
		switch k {
		case "t":
			parsed, err := strconv.ParseInt(v, 10, 64)
			if err != nil || haveT {
				return ErrMalformed
			}
			t, haveT = parsed, true
		case "v1":
			sig, err := hex.DecodeString(v)
			if err != nil {
				return ErrMalformed
			}
			sigs = append(sigs, sig)
		}
		// Other schemes are ignored so that a future v2 does not break v1 receivers.
	}
	if !haveT || len(sigs) == 0 {
		return ErrMalformed
	}
	if skew := now.Sub(time.Unix(t, 0)); skew > Tolerance || skew < -Tolerance {
		return ErrTimestamp
	}
	want := mac(secret, t, body)
	matched := 0
	for _, sig := range sigs {
		// Every candidate is compared, so timing does not reveal which matched.
		matched |= boolToInt(hmac.Equal(sig, want))
	}
	if matched == 0 {
		return ErrMismatch
	}
	return nil
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
