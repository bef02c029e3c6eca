package kit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
)

// If-Match as RFC 9110 reads it: "*" matches any revision, a list matches
// any of its strong tags, a weak or foreign tag matches nothing, and no
// header at all is a 428.
func TestIfMatch(t *testing.T) {
	match := func(header string) (domain.Expected, error) {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodPatch, "/", nil)
		if header != "" {
			c.Request.Header.Set("If-Match", header)
		}
		return IfMatch(c)
	}
	_, err := match("")
	p := ProblemOf(err)
	require.NotNil(t, p)
	assert.Equal(t, http.StatusPreconditionRequired, p.Status)

	for header, want := range map[string][]bool{
		`*`:           {true, true},
		`"1"`:         {true, false},
		`"3", "1"`:    {true, false},
		`W/"1"`:       {false, false},
		`"x", "2"`:    {false, true},
		`1`:           {false, false},
		` "2" , "9" `: {false, true},
	} {
		e, err := match(header)
		require.NoError(t, err, header)
		assert.Equal(t, want, []bool{e.Matches(1), e.Matches(2)}, header)
	}
}
