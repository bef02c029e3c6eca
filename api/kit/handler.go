package kit

import (
	"net/http"
	"reflect"

	"github.com/gin-gonic/gin"

	"ppwr/internal/input"
)

// Handler is an operation's handler with the typed body and query the
// kernel binds for it.
type Handler struct {
	run   HandlerFunc
	body  *Body
	query []Param
}

// bindable is a pointer to a type with a Declare method.
type bindable[T any] interface {
	*T
	input.Body
}

// Do is a handler that binds no typed body or query (a paginated
// operation still gets cursor and per_page checked).
func Do(fn HandlerFunc) Handler {
	return Handler{run: func(c *gin.Context) error {
		var errs input.Errors
		bindPage(c, &errs)
		if err := errs.Err(); err != nil {
			return err
		}
		return fn(c)
	}}
}

// JSON is a handler of a typed JSON body B. The kernel binds the body
// field by field and passes it on with the errors it found; the handler,
// or the command it runs, answers them together with its own findings
// (a reference that must exist, a code that must be free). Should a
// handler ignore them and succeed, the kernel answers them instead, and
// nothing commits.
func JSON[B any, P bindable[B]](fn func(c *gin.Context, in P) error) Handler {
	return JSONBody(reflect.TypeFor[B]().Name(), func() P { return P(new(B)) }, fn)
}

// JSONBody is JSON for one Go type that serves operations with different
// declarations (each PPWR register binds its own values): newBody makes
// the operation's empty body, documented under name.
func JSONBody[P input.Body](name string, newBody func() P, fn func(c *gin.Context, in P) error) Handler {
	schema := input.Describe(newBody())
	required, _ := schema["required"].([]string)
	return Handler{
		body: &Body{Name: name, ContentType: "application/json", Schema: schema, Required: len(required) > 0},
		run: func(c *gin.Context) error {
			in := newBody()
			// The pipeline reads only a valid JSON body (readBody).
			if err := input.FromValidJSON(State(c).Body, in); err != nil {
				return NewProblem(http.StatusUnprocessableEntity, CodeInvalidJSON, "error.json_object_expected")
			}
			err := fn(c, in)
			if err == nil && in.Failed() {
				return in.Err()
			}
			return err
		},
	}
}

// Query is a handler of a typed query Q, bound with the page of a
// paginated operation; every bad parameter is answered at once, before
// the handler runs.
func Query[Q any, P bindable[Q]](fn func(c *gin.Context, q P) error) Handler {
	var params []Param
	for _, p := range input.DescribeParams(P(new(Q))) {
		params = append(params, Param{Name: p.Name, Required: p.Required, Schema: p.Schema, DescKey: "param." + p.Name})
	}
	return Handler{
		query: params,
		run: func(c *gin.Context) error {
			q := P(new(Q))
			input.FromQuery(c.Request.URL.Query(), q)
			bindPage(c, q)
			if err := q.Err(); err != nil {
				return err
			}
			return fn(c, q)
		},
	}
}

// Multipart is a handler of a multipart/form-data body that the handler
// streams itself with c.Request.MultipartReader(): the pipeline does not
// read such a body (an upload may be far larger than a JSON body). name
// and form document the body's fields; the handler checks them.
func Multipart(name string, form Schema, fn HandlerFunc) Handler {
	return Handler{
		body: &Body{Name: name, ContentType: "multipart/form-data", Schema: form, Required: true},
		run:  fn,
	}
}
