package api

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/testenv"
)

// A body stored as sent is the same jsonb value as its redaction, and one
// whose redaction may differ is redacted.
func TestSummaryOfABodyAsSentIsItsRedaction(t *testing.T) {
	db := testenv.DB(t)
	asSent := []string{
		`{"internalCode":"A-1","name":"Butelka na żywność","massG":"24.5","stockTracked":true,"innerLengthMm":null}`,
		"{ \"lines\" : [ {\"quantity\": 12.50, \"note\": \"<b>&</b>\"}, 1, -0, 3.25, false ],\n \"name\":\"x\"}",
		`{"a":1,"a":2}`, `[]`, `"text"`, `{"description":"e1 E2 1e5 in a string"}`, `{"note":"the token: Password"}`,
	}
	for _, body := range asSent {
		require.True(t, nothingToRedact([]byte(body)), body)
		var same bool
		require.NoError(t, db.Raw(`SELECT ?::jsonb = ?::jsonb`, string(redactedSummary(&url.URL{}, []byte(body))),
			string(decodedSummary(nil, []byte(body)))).Scan(&same).Error)
		assert.True(t, same, body)
	}
	redacted := []string{
		`{"name":"x","apiToken":"hunter2"}`, `{"name":"x","nested":[{"PassWord":"hunter2"}]}`,
		`{"name":"x","\u0074oken":"hunter2"}`, `{"name":"to\u212Aen"}`, `{"to` + "\u212A" + `en":"hunter2"}`,
		`{"name":"A\u0000B"}`, `{"massG":1e400}`, `{"massG":2E-3}`, "{\"name\":\"\xff\"}",
	}
	for _, body := range redacted {
		assert.False(t, nothingToRedact([]byte(body)), body)
	}
	assert.Equal(t, `{"body":{"apiToken":"[REDACTED]","name":"x"}}`, string(redactedSummary(&url.URL{}, []byte(redacted[0]))))
	assert.Equal(t, `{"body":{"name":"x"},"query":{"token":"[REDACTED]"}}`,
		string(redactedSummary(&url.URL{RawQuery: "token=hunter2"}, []byte(`{"name":"x"}`))))
}

// A name holds a secret when, lowered, it contains a secret word.
func TestSecretKeyFindsTheWordsInAnyCase(t *testing.T) {
	lowered := func(name string) bool {
		name = strings.ToLower(name)
		return slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(name, w) })
	}
	for _, name := range []string{"apiToken", "TOKEN", "tok", "x-API-KEY", "api_Key", "apikey", "client_secret", "Passwd", "PassWord1",
		"authorizationHeader", "credentials", "signatureV2", "massG", "name", "to\u212Aen", "ŻółćToken", "sign", "", "t", "apik"} {
		assert.Equal(t, lowered(name), secretKey(name), name)
	}
}
