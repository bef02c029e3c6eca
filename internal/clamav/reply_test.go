package clamav

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// clamd's scan errors cannot be provoked on demand, so their reading is
// checked on the replies as clamd words them.
func TestParseScanReply(t *testing.T) {
	for _, tc := range []struct {
		reply     string
		verdict   Verdict
		failed    bool
		permanent bool
	}{
		{reply: "stream: OK"},
		{reply: "stream: Eicar-Test-Signature.UNOFFICIAL FOUND", verdict: Verdict{Infected: true, Signature: "Eicar-Test-Signature.UNOFFICIAL"}},
		{reply: "stream: Win.Test.EICAR_HDB-1(44d88612fea8a8f36de82e1278abb02f:68) FOUND", verdict: Verdict{Infected: true, Signature: "Win.Test.EICAR_HDB-1(44d88612fea8a8f36de82e1278abb02f:68)"}},
		{reply: "INSTREAM size limit exceeded. ERROR", failed: true, permanent: true},
		{reply: "stream: Can't create temporary file ERROR", failed: true},
		{reply: "UNKNOWN COMMAND", failed: true, permanent: true},
		{reply: "stream: something new", failed: true, permanent: true},
	} {
		v, err := parseScanReply(tc.reply)
		assert.Equal(t, tc.verdict, v, tc.reply)
		assert.Equal(t, tc.failed, err != nil, "%s: %v", tc.reply, err)
		assert.Equal(t, tc.permanent, IsPermanent(err), "%s: %v", tc.reply, err)
	}
}
