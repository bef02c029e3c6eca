package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/internal/clientgen"
	"ppwr/internal/i18n"
)

// listsProgram is the head of the program that reads every list through
// the generated client: it takes the server's base URL and an API token,
// and check prints, for each list, a JSON line with the operation and
// the number of items the client decoded, or why it could not read it.
const listsProgram = `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"time"

	"github.com/google/uuid"

	client "` + clientgen.ClientImportPath + `"
)

func check(op string, call func() (any, error)) {
	line := map[string]any{"op": op}
	res, err := call()
	if err != nil {
		line["error"] = err.Error()
	} else {
		v := reflect.ValueOf(res).Elem()
		status := res.(interface{ StatusCode() int }).StatusCode()
		body := v.FieldByName("JSON200")
		switch {
		case status != http.StatusOK:
			line["error"] = fmt.Sprintf("HTTP %d: %s", status, v.FieldByName("Body").Bytes())
		case body.IsNil():
			line["error"] = "no typed JSON200 for " + v.FieldByName("HTTPResponse").Interface().(*http.Response).Header.Get("Content-Type")
		case body.Elem().FieldByName("Data").Kind() != reflect.Slice:
			line["error"] = "the answer has no data list"
		default:
			line["items"] = body.Elem().FieldByName("Data").Len()
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(line); err != nil {
		panic(err)
	}
}

func main() {
	token := os.Args[2]
	c, err := client.NewClientWithResponses(os.Args[1], client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
`

// listRead is a line the program prints.
type listRead struct {
	Op    string `json:"op"`
	Items int    `json:"items"`
	Error string `json:"error"`
}

// TestGeneratedGoClientReadsEveryList proves that a Go client generated
// with oapi-codegen from the served document reads the answer of every
// list: each paginated operation and each answering a list envelope. The
// real engine serves an organization seeded through the API
// (seedOrganization) on a real listener; one program, generated from the
// operation table and built against the generated client, calls every
// list through ClientWithResponses, with the seeded records in its path,
// and the answer must be a 200 that decodes into the typed JSON200 with
// at least one item, so that the item type is tried too: every list has
// a record in the seed (an import's rows and a version's pages stored as
// their workflows would leave them). A list that cannot be read, that is
// empty, or that the program cannot call because no seeded record fits
// its path, fails the subtest named after its operation.
func TestGeneratedGoClientReadsEveryList(t *testing.T) {
	a := apitest.New(t, apitest.WithStorage())
	c := seedOrganization(t, a)
	srv := httptest.NewServer(a.Engine)
	defer srv.Close()

	var program strings.Builder
	program.WriteString(listsProgram)
	uncalled := map[string]string{}
	var lists []string
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Type any `json:"type"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(a.Server.OpenAPIDocument(i18n.EN), &doc))
	// A list is a read answering a data array: the cursor lists, and the
	// few that answer every item at once or by page number.
	isList := func(op kit.Operation) bool {
		ref, _ := op.Success.Schema["$ref"].(string)
		data, ok := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].Properties["data"]
		return op.Method == http.MethodGet && ok && data.Type == "array"
	}
	for _, op := range a.Server.Operations() {
		if !isList(op) {
			continue
		}
		lists = append(lists, op.ID)
		args, err := pathArgs(c, op)
		if err != nil {
			uncalled[op.ID] = err.Error()
			continue
		}
		name := strings.ToUpper(op.ID[:1]) + op.ID[1:]
		params, err := requiredParams(op)
		if err != nil {
			uncalled[op.ID] = err.Error()
			continue
		}
		fmt.Fprintf(&program, "\tcheck(%q, func() (any, error) { return c.%sWithResponse(ctx%s, &client.%sParams{%s}) })\n",
			op.ID, name, args, name, params)
	}
	program.WriteString("}\n")

	out, err := clientgen.RunGoClient(t.Context(), a.Server.OpenAPIDocument(i18n.EN), []byte(program.String()),
		srv.URL+"/api/v1", c.tn.Token)
	require.NoError(t, err)
	reads := map[string]listRead{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r listRead
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "a line of the program: %s", sc.Text())
		reads[r.Op] = r
	}
	require.NoError(t, sc.Err())

	for _, id := range lists {
		t.Run(id, func(t *testing.T) {
			if why, ok := uncalled[id]; ok {
				t.Fatalf("the program cannot call %s: %s", id, why)
			}
			r, ok := reads[id]
			require.True(t, ok, "the program did not report %s", id)
			require.Empty(t, r.Error, "the generated client cannot read %s", id)
			assert.Positive(t, r.Items, "%s is empty, so its item type is not tried: seed a record in seedOrganization", id)
		})
	}
}

// requiredQuery are Go values of the query parameters a list requires,
// by name: the seeded records are of this year.
var requiredQuery = map[string]string{"year": "time.Now().Year()"}

// requiredParams are the fields of op's generated Params literal that its
// required query parameters need.
func requiredParams(op kit.Operation) (string, error) {
	var fields []string
	for _, q := range op.Query {
		if !q.Required {
			continue
		}
		value, ok := requiredQuery[q.Name]
		if !ok {
			return "", fmt.Errorf("no value for its required query parameter %s", q.Name)
		}
		fields = append(fields, strings.ToUpper(q.Name[:1])+q.Name[1:]+": "+value)
	}
	return strings.Join(fields, ", "), nil
}

// pathArgs are the Go arguments after ctx for the path of op: the
// organization's id, and for each other parameter the seeded record of
// the collection that precedes it in the path.
func pathArgs(c *creator, op kit.Operation) (string, error) {
	var args strings.Builder
	for _, param := range op.PathParams() {
		id := c.tn.Org.String()
		if param != "organizationId" {
			collection := strings.TrimPrefix(op.Path[:strings.Index(op.Path, "/{"+param+"}")], kit.Org)
			var ok bool
			if id, ok = c.records[collection]; !ok {
				return "", fmt.Errorf("no seeded record of %s for {%s}", collection, param)
			}
		}
		fmt.Fprintf(&args, ", uuid.MustParse(%q)", id)
	}
	return args.String(), nil
}
