package kit

import (
	"encoding/json"
	"net/http"
	"reflect"

	"ppwr/internal/input"
)

// Schema is a JSON Schema (OpenAPI 3.1 dialect) fragment.
type Schema = input.Schema

// Ref refers to a named component schema.
func Ref(name string) Schema { return Schema{"$ref": "#/components/schemas/" + name} }

// Str, UUID, Date, DateTime, Bool and Int are the scalar schemas.
func Str() Schema                 { return Schema{"type": "string"} }
func UUID() Schema                { return Schema{"type": "string", "format": "uuid"} }
func Date() Schema                { return Schema{"type": "string", "format": "date"} }
func DateTime() Schema            { return Schema{"type": "string", "format": "date-time"} }
func Bool() Schema                { return Schema{"type": "boolean"} }
func Int() Schema                 { return Schema{"type": "integer"} }
func ArrayOf(items Schema) Schema { return Schema{"type": "array", "items": items} }

// Enum is a string enumeration.
func Enum(values ...string) Schema { return Schema{"type": "string", "enum": values} }

// DecimalString is a decimal sent as a JSON string, in answers.
func DecimalString() Schema {
	return Schema{"type": "string", "pattern": `^[0-9]+(\.[0-9]+)?$`, "examples": []string{"12.5"}}
}

// Described gives a schema the description of a message key, translated
// in each locale's document.
func Described(s Schema, key string) Schema { s["description"] = input.Msg(key); return s }

// Nullable widens a schema's type with null (OpenAPI 3.1 has no nullable).
func Nullable(s Schema) Schema { return input.Nullable(s) }

// ListOf is the list envelope around items of the named schema, item:
// the envelope Paginate encodes, its data the named items. When item has
// examples (Model.Example), its example is the last page of them.
func ListOf(name string, item Schema) Schema {
	g := generator{names: map[reflect.Type]string{reflect.TypeFor[listLinks](): listLinksModel}, path: ListName(name)}
	s := g.object(reflect.TypeFor[Page[any]]())
	s["properties"].(map[string]any)["data"] = ArrayOf(Ref(name))
	if examples := examplesOf(item); examples != nil {
		s["examples"] = []json.RawMessage{encodeExample(Page[json.RawMessage]{Data: examples, RequestID: exampleRequestID})}
	}
	return s
}

// exampleRequestID is the request id of the examples of list envelopes.
const exampleRequestID = "0195a1c4-2f6e-7d3a-9b8c-4e5f6a7b8c9d"

// ListName is the name of the component holding the list envelope of the
// named item schema.
func ListName(item string) string { return item + "List" }

// Response is the documented success response.
type Response struct {
	Status      int
	ContentType string // default application/json
	// ContentTypes, when set, are the media types a body of Schema may
	// have instead (a download answers its file's type).
	ContentTypes []string
	Schema       Schema // nil: no body
	// Negotiated are further media types the same status answers, each
	// with a body of its own, when the request's Accept header asks for
	// one: a record that is also served as its file.
	Negotiated map[string]Schema
	Headers    []Param
	// Also are other success statuses answering the same body: an upsert
	// answers 201 when it adds and 200 when it changes.
	Also []int
	// Read is the operationId of the GET that serves the record a
	// Location header names; ResolveLocations checks it at assembly.
	Read string
	// List names the item schema of a list answer; the document derives
	// the envelope's component, ListName(List), from it.
	List string
}

// Or documents status as another success of the same body.
func (r Response) Or(status int) Response {
	r.Also = append(append([]int(nil), r.Also...), status)
	return r
}

// OK is a 200 answering schema.
func OK(schema Schema) Response { return Response{Status: http.StatusOK, Schema: schema} }

// ListOK is a 200 answering the list envelope of items of the named
// schema, a named component so that generated clients get a type for it.
func ListOK(item string) Response {
	return Response{Status: http.StatusOK, Schema: Ref(ListName(item)), List: item}
}

// CreatedResponse is a 201 answering schema, with the Location of the new
// record: its URL by read, the operationId of the GET that serves it.
func CreatedResponse(schema Schema, read string) Response {
	return Response{Status: http.StatusCreated, Schema: schema}.WithLocation(read)
}

// WithETag adds the ETag header to a response.
func (r Response) WithETag() Response {
	r.Headers = append(append([]Param(nil), r.Headers...), Param{Name: "ETag", Schema: Str(), DescKey: "header.etag"})
	return r
}

// AcceptedResponse is a 202 answering schema: work was queued, and the
// answer says when to read it again (Accepted).
func AcceptedResponse(schema Schema) Response {
	return Response{Status: http.StatusAccepted, Schema: schema}.Polled()
}

// WithLocation adds the Location header of the record the answer names,
// which read, the operationId of a GET, serves.
func (r Response) WithLocation(read string) Response {
	r.Headers = append(append([]Param(nil), r.Headers...), locationHeader)
	r.Read = read
	return r
}

// Binary is a file part of a multipart body.
func Binary() Schema { return Schema{"type": "string", "contentMediaType": "application/octet-stream"} }
