package kit

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/internal/input"
)

// Page sizes of cursor lists (the spec's limits).
const (
	DefaultPerPage = 50
	MaxPerPage     = 100
)

// page is a validated cursor request.
type page struct {
	after       uuid.UUID // uuid.Nil: first page
	afterNumber int       // of a list by number (PaginateByNumber); 0: first page
	perPage     int
}

// cursorToken is the opaque cursor: the id of the last row of the previous
// page (ids are UUIDv7, so id order is a stable creation order), or its
// number in a list of numbered rows, such as a version's pages; and the
// digest of the list that issued it. A cursor sent to another list, or to
// the same list with other filters, would skip rows silently; the digest
// has it refused instead.
type cursorToken struct {
	After  *uuid.UUID `json:"a,omitempty"`
	Number int        `json:"n,omitempty"`
	List   string     `json:"l"`
}

// names tells whether the token names one row: a non-nil id or a
// positive number, not both.
func (t cursorToken) names() bool {
	if t.After != nil {
		return *t.After != uuid.Nil && t.Number == 0
	}
	return t.Number > 0
}

// failer records field errors.
type failer interface {
	Fail(field, key string, args ...any)
}

// bindPage validates cursor and per_page of a paginated operation into the
// request state, recording what is wrong in errs.
func bindPage(c *gin.Context, errs failer) {
	st := State(c)
	if st.Operation == nil || !st.Operation.Paginated {
		return
	}
	st.page = page{perPage: DefaultPerPage}
	if raw, ok := c.GetQuery("per_page"); ok {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > MaxPerPage {
			errs.Fail("per_page", "field.per_page_range", 1, MaxPerPage)
		} else {
			st.page.perPage = n
		}
	}
	if raw := c.Query("cursor"); raw != "" {
		var tok cursorToken
		data, err := base64.RawURLEncoding.DecodeString(raw)
		switch {
		case err != nil || json.Unmarshal(data, &tok) != nil || !tok.names():
			errs.Fail("cursor", "field.cursor_invalid")
		case tok.List != listDigest(c):
			errs.Fail("cursor", "field.cursor_other_list")
		case tok.After != nil:
			st.page.after = *tok.After
		default:
			st.page.afterNumber = tok.Number
		}
	}
}

// encodeCursor is the cursor of the page after the row with id after, in
// the list the request reads.
func encodeCursor(c *gin.Context, after uuid.UUID) string {
	return sealCursor(c, cursorToken{After: &after})
}

// encodeNumberCursor is the cursor of the page after the row numbered n,
// in the list the request reads (PaginateByNumber).
func encodeNumberCursor(c *gin.Context, n int) string {
	return sealCursor(c, cursorToken{Number: n})
}

// sealCursor binds tok to the list the request reads and encodes it.
func sealCursor(c *gin.Context, tok cursorToken) string {
	tok.List = listDigest(c)
	data, _ := json.Marshal(tok)
	return base64.RawURLEncoding.EncodeToString(data)
}

// errCursorKind refuses a cursor of the other kind of list: a row number
// where ids are listed, or the reverse. The digest already ties a cursor
// to its operation, so only a forged cursor gets here.
func errCursorKind() error { return Invalid(Field("cursor", "field.cursor_invalid")) }

// listDigest identifies the list a request reads: its operation, the
// records its path names (the organization, a parent record) and its
// filters as binding reads them: each query parameter of the operation by
// its first value, an empty one counting as absent. per_page is not a
// filter: a client may change it between pages.
func listDigest(c *gin.Context) string {
	op := State(c).Operation
	h := sha256.New()
	fmt.Fprintf(h, "%q\n", op.ID)
	for _, name := range op.PathParams() {
		value := c.Param(name)
		if id, err := uuid.Parse(value); err == nil {
			value = id.String()
		}
		fmt.Fprintf(h, "%q=%q\n", name, value)
	}
	names := make([]string, 0, len(op.Query))
	for _, p := range op.Query {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	query := c.Request.URL.Query()
	for _, name := range names {
		if value := query.Get(name); value != "" {
			fmt.Fprintf(h, "%q=%q\n", name, value)
		}
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
}

// Page is the spec's list envelope around items R; an answer that
// carries more beside its list embeds it.
type Page[R any] struct {
	Data      []R       `json:"data"`
	Links     listLinks `json:"links"`
	RequestID string    `json:"requestId" schema:"uuid"`
}

type listLinks struct {
	Next *string `json:"next" schema:"uri"`
}

// Order is a list's order: by id, which is creation order.
type Order bool

const (
	OldestFirst Order = false
	NewestFirst Order = true
)

// Paginate answers one page of q, a query of T rows already scoped to the
// organization, as the list envelope; render maps a row to its resource.
func Paginate[T any, R any](c *gin.Context, q *gorm.DB, order Order, render func(*T) R) error {
	return PaginateWith(c, q, order, render, asIs[R])
}

// PaginatePage is Paginate for resources rendered a page at a time, so
// that what they add to their rows (resolved evidence, freshness) is read
// with one query per page rather than one per row; and, through EachRow,
// for rows whose rendering can fail.
func PaginatePage[T any, R any](c *gin.Context, q *gorm.DB, order Order, render func([]T) ([]R, error)) error {
	return paginate(c, q, order, render, asIs[R])
}

// EachRow renders a page row by row with render, which can fail (a row's
// stored value that does not decode): the first error fails the page.
func EachRow[T any, R any](render func(*T) (R, error)) func([]T) ([]R, error) {
	return func(rows []T) ([]R, error) {
		data := make([]R, len(rows))
		for i := range rows {
			var err error
			if data[i], err = render(&rows[i]); err != nil {
				return nil, err
			}
		}
		return data, nil
	}
}

// Infallible is render as a renderer that can fail, for ShowJob.
func Infallible[T any, R any](render func(*T) R) func(*T) (R, error) {
	return func(row *T) (R, error) { return render(row), nil }
}

// asIs answers the page alone.
func asIs[R any](p Page[R]) Page[R] { return p }

// PaginateWith is Paginate whose answer carries more than the page, such
// as the record the listed rows belong to when no other operation reads
// it: answer is the page with it.
func PaginateWith[T any, R any, A any](c *gin.Context, q *gorm.DB, order Order, render func(*T) R, answer func(Page[R]) A) error {
	return paginate(c, q, order, EachRow(Infallible(render)), answer)
}

func paginate[T any, R any, A any](c *gin.Context, q *gorm.DB, order Order, render func([]T) ([]R, error), answer func(Page[R]) A) error {
	p := State(c).page
	if p.afterNumber != 0 {
		return errCursorKind()
	}
	by, after := "id ASC", "id > ?"
	if order == NewestFirst {
		by, after = "id DESC", "id < ?"
	}
	if p.after != uuid.Nil {
		q = q.Where(after, p.after)
	}
	var rows []T
	if err := q.Order(by).Limit(p.perPage + 1).Find(&rows).Error; err != nil {
		return err
	}
	var next *string
	if len(rows) > p.perPage {
		rows = rows[:p.perPage]
		last, err := primaryKey(q, &rows[len(rows)-1])
		if err != nil {
			return err
		}
		link := nextLink(c, encodeCursor(c, last))
		next = &link
	}
	data, err := render(rows)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, answer(newPage(c, data, next)))
	return nil
}

// PaginateByNumber answers one page of q, rows numbered within the record
// they belong to (a version's pages), in the order of their number, which
// is column; number reads it from a row.
func PaginateByNumber[T any, R any](c *gin.Context, q *gorm.DB, column string, number func(*T) int, render func(*T) R) error {
	p := State(c).page
	if p.after != uuid.Nil {
		return errCursorKind()
	}
	var rows []T
	if err := q.Where(column+" > ?", p.afterNumber).Order(column).Limit(p.perPage + 1).Find(&rows).Error; err != nil {
		return err
	}
	var next *string
	if len(rows) > p.perPage {
		rows = rows[:p.perPage]
		link := nextLink(c, encodeNumberCursor(c, number(&rows[len(rows)-1])))
		next = &link
	}
	data := make([]R, len(rows))
	for i := range rows {
		data[i] = render(&rows[i])
	}
	c.JSON(http.StatusOK, newPage(c, data, next))
	return nil
}

func newPage[R any](c *gin.Context, data []R, next *string) Page[R] {
	return Page[R]{Data: data, Links: listLinks{Next: next}, RequestID: State(c).ID}
}

// primaryKey reads a row's id through GORM's schema of T.
func primaryKey[T any](db *gorm.DB, row *T) (uuid.UUID, error) {
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(row); err != nil {
		return uuid.Nil, err
	}
	v, _ := stmt.Schema.PrioritizedPrimaryField.ValueOf(context.Background(), reflect.ValueOf(row).Elem())
	id, _ := v.(uuid.UUID)
	return id, nil
}

// nextLink is the absolute URL of the next page: the same request with the
// cursor replaced, so a client can follow links.next without rebuilding
// its filters.
func nextLink(c *gin.Context, cursor string) string {
	q := url.Values{}
	for k, v := range c.Request.URL.Query() {
		q[k] = v
	}
	q.Set("cursor", cursor)
	return State(c).BaseURL + c.Request.URL.Path + "?" + q.Encode()
}

// Filter narrows q to rows whose column equals the parameter, when the
// request sent it.
func Filter[T any](q *gorm.DB, column string, param input.Opt[T]) *gorm.DB {
	if !param.Set() {
		return q
	}
	return q.Where(column+" = ?", param.Value)
}
