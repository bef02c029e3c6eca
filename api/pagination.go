package api

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"
)

const (
	defaultPerPage = 50
	maxPerPage     = 100
)

// page is a validated cursor request.
type page struct {
	after   uuid.UUID // uuid.Nil: first page
	perPage int
}

// cursorToken is the opaque cursor: the id of the last row of the previous
// page. Ids are UUIDv7, so id order is a stable creation order.
type cursorToken struct {
	After uuid.UUID `json:"a"`
}

// parsePage validates cursor and per_page (422 naming the field otherwise).
func parsePage(c *gin.Context) (page, error) {
	p := page{perPage: defaultPerPage}
	var fields []FieldError
	if raw, ok := c.GetQuery("per_page"); ok {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxPerPage {
			fields = append(fields, Field("per_page", "field.per_page_range", 1, maxPerPage))
		} else {
			p.perPage = n
		}
	}
	if raw := c.Query("cursor"); raw != "" {
		var tok cursorToken
		data, err := base64.RawURLEncoding.DecodeString(raw)
		if err != nil || json.Unmarshal(data, &tok) != nil || tok.After == uuid.Nil {
			fields = append(fields, Field("cursor", "field.cursor_invalid"))
		} else {
			p.after = tok.After
		}
	}
	if fields != nil {
		return p, Invalid(fields...)
	}
	return p, nil
}

func encodeCursor(after uuid.UUID) string {
	data, _ := json.Marshal(cursorToken{After: after})
	return base64.RawURLEncoding.EncodeToString(data)
}

// listEnvelope is the spec's list envelope.
type listEnvelope struct {
	Data      any       `json:"data"`
	Links     listLinks `json:"links"`
	RequestID string    `json:"requestId"`
}

type listLinks struct {
	Next *string `json:"next"`
}

// paginate runs a keyset query for one page ordered by id (descending when
// newestFirst) and answers the list envelope. The query must select rows of
// type T whose id is returned by idOf; toJSON maps a row to its resource.
func paginate[T any, R any](c *gin.Context, s *Server, q *gorm.DB, newestFirst bool, idOf func(*T) uuid.UUID, toJSON func(*T) R) error {
	p, err := parsePage(c)
	if err != nil {
		return err
	}
	order, cmp := "id ASC", "id > ?"
	if newestFirst {
		order, cmp = "id DESC", "id < ?"
	}
	if p.after != uuid.Nil {
		q = q.Where(cmp, p.after)
	}
	var rows []T
	if err := q.Order(order).Limit(p.perPage + 1).Find(&rows).Error; err != nil {
		return err
	}
	var next *string
	if len(rows) > p.perPage {
		rows = rows[:p.perPage]
		link := s.nextLink(c, encodeCursor(idOf(&rows[len(rows)-1])))
		next = &link
	}
	data := make([]R, len(rows))
	for i := range rows {
		data[i] = toJSON(&rows[i])
	}
	c.JSON(200, listEnvelope{Data: data, Links: listLinks{Next: next}, RequestID: requestIDOf(c)})
	return nil
}

// nextLink is the absolute URL of the next page: the same request with the
// cursor replaced, so a client can follow links.next without rebuilding
// its filters.
func (s *Server) nextLink(c *gin.Context, cursor string) string {
	q := url.Values{}
	for k, v := range c.Request.URL.Query() {
		q[k] = v
	}
	q.Set("cursor", cursor)
	return s.Config.PublicBaseURL + c.Request.URL.Path + "?" + q.Encode()
}
