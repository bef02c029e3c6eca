package clientgen

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An OpenAPI 3.1 document with type arrays (nullable fields, a nullable
// enum), anyOf, oneOf with null, $refs to schemas, parameters, headers and
// responses, header parameters and a webhooks section generates a client
// that compiles.
func TestCompileGoClient(t *testing.T) {
	doc, err := os.ReadFile("testdata/openapi31.json")
	require.NoError(t, err)
	require.NoError(t, CompileGoClient(t.Context(), doc))
}

// oapi-codegen reads a 3.1 type array of one type and null as a pointer to
// that type, rather than dropping the field or falling back to any.
func TestTypeArraysBecomePointers(t *testing.T) {
	doc, err := os.ReadFile("testdata/openapi31.json")
	require.NoError(t, err)
	root, err := moduleRoot(t.Context())
	require.NoError(t, err)
	src, err := generate(t.Context(), root, t.TempDir(), doc)
	require.NoError(t, err)

	for _, want := range []string{
		`Note\s+\*string\s+` + "`json:\"note\"`",
		`Count\s+\*int\s+` + "`json:\"count\"`",
		`CreatedAt\s+\*time\.Time\s+` + "`json:\"createdAt\"`",
		`Due\s+\*openapi_types\.Date\s+` + "`json:\"due\"`",
		`Status\s+\*ThingStatus\s+` + "`json:\"status\"`",
		`Owner\s+\*Owner\s+` + "`json:\"owner\"`",
		`Email\s+\*openapi_types\.Email\s+` + "`json:\"email\"`",
		`func \(c \*Client\) ThingsCreate\(`,                // an operation
		`req\.Header\.Set\("Idempotency-Key", `,             // a header parameter
		`func \(p \*WebhookInitiator\) EventThingCreated\(`, // a webhook
	} {
		// Not assert.Regexp: on failure it would print the whole file.
		assert.True(t, regexp.MustCompile(want).Match(src), "the generated client has %s", want)
	}
}

// A type array of several non-null types (what the service's Event.data
// values were described with) stops oapi-codegen v2.8.2. The checker must
// report that, with the generator's message. (Should an oapi-codegen
// upgrade accept this document, keep the guard with another it rejects.)
func TestMultiTypeArrayFails(t *testing.T) {
	doc, err := os.ReadFile("testdata/multitype.json")
	require.NoError(t, err)
	err = CompileGoClient(t.Context(), doc)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "oapi-codegen")
	assert.Contains(t, err.Error(), "unhandled Schema type")
}

// The compile step fails on code that does not compile and quotes the
// offending generated line.
func TestCompileFailureIsReported(t *testing.T) {
	root, err := moduleRoot(t.Context())
	require.NoError(t, err)
	src := []byte("package client\n\nfunc f() int {\n\treturn undefinedName\n}\n")
	err = compile(t.Context(), root, t.TempDir(), map[string][]byte{generatedDir + "/client.go": src}, "./"+generatedDir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not compile")
	assert.Contains(t, err.Error(), "undefined: undefinedName")
	assert.Contains(t, err.Error(), "client.go     4\t\treturn undefinedName")
}

// thingsProgram lists the things of the server named by its argument
// through the generated client, printing each name, and exits non-zero
// when the client cannot read the answer.
const thingsProgram = `package main

import (
	"context"
	"fmt"
	"os"

	client "` + ClientImportPath + `"
)

func main() {
	c, err := client.NewClientWithResponses(os.Args[1])
	if err != nil {
		panic(err)
	}
	res, err := c.ThingsListWithResponse(context.Background(), &client.ThingsListParams{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot read the list:", err)
		os.Exit(1)
	}
	for _, thing := range res.JSON200.Data {
		fmt.Println(thing.Name, *thing.Count)
	}
}
`

// A program built against the generated client runs, calls a server
// through it and prints what it decoded; an answer the client cannot
// decode fails the run with the program's message.
func TestRunGoClient(t *testing.T) {
	doc, err := os.ReadFile("testdata/openapi31.json")
	require.NoError(t, err)
	thing := `{"id":"0190b5a6-7c4e-7b1a-8f00-000000000001","name":"Box","note":null,"count":%s,"due":null,"createdAt":null,` +
		`"status":"draft","amount":"1.5","owner":null,"next":null}`
	count := "3"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":[`+thing+`],"requestId":"0190b5a6-7c4e-7b1a-8f00-000000000002"}`, count)
	}))
	defer srv.Close()

	out, err := RunGoClient(t.Context(), doc, []byte(thingsProgram), srv.URL)
	require.NoError(t, err)
	assert.Equal(t, "Box 3\n", string(out))

	count = `"three"`
	_, err = RunGoClient(t.Context(), doc, []byte(thingsProgram), srv.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the program failed")
	assert.Contains(t, err.Error(), "cannot read the list: json: cannot unmarshal string")
}

// A program that does not compile is reported with its offending line.
func TestRunGoClientCompileFailure(t *testing.T) {
	doc, err := os.ReadFile("testdata/openapi31.json")
	require.NoError(t, err)
	program := "package main\n\nimport client \"" + ClientImportPath + "\"\n\nfunc main() {\n\tclient.NoSuchFunction()\n}\n"
	_, err = RunGoClient(t.Context(), doc, []byte(program))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not compile")
	assert.Contains(t, err.Error(), "main.go     6\t\tclient.NoSuchFunction()")
}
