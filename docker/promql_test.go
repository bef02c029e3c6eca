package docker_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// query is what the dashboard's checks need of one PromQL expression: the
// series it selects, each with the labels it matches on, and the labels it
// aggregates by. It is read by the small lexer below rather than
// Prometheus's own parser, whose module would bring the whole server in
// for a test.
type query struct {
	selectors []selector
	by        []string
}

// selector is one series selector: a metric name and its matchers' labels.
type selector struct {
	metric   string
	matchers map[string]string // label → matcher as written, e.g. `=~"5.."`
}

// keywords are PromQL words that are neither metrics nor functions.
var keywords = []string{"bool", "and", "or", "unless", "offset", "inf", "nan"}

// aggregations may put their by or without clause before their
// arguments, so that no parenthesis follows their name.
var aggregations = []string{"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
	"bottomk", "topk", "quantile", "limitk", "limit_ratio"}

// labelLists are the words followed by a parenthesised list of labels.
var labelLists = []string{"by", "without", "on", "ignoring", "group_left", "group_right"}

// parseQuery reads the selectors and grouping labels of expr. It fails on
// what it cannot read, so that a query it misreads is never waved through.
func parseQuery(expr string) (query, error) {
	var q query
	s := []rune(expr)
	i := 0
	skipSpace := func() {
		for i < len(s) && unicode.IsSpace(s[i]) {
			i++
		}
	}
	ident := func() string {
		start := i
		for i < len(s) && (s[i] == '_' || s[i] == ':' || unicode.IsLetter(s[i]) || (i > start && unicode.IsDigit(s[i]))) {
			i++
		}
		return string(s[start:i])
	}
	quoted := func() (string, error) {
		quote, start := s[i], i
		for i++; i < len(s) && s[i] != quote; i++ {
			if s[i] == '\\' && quote != '`' {
				i++
			}
		}
		if i >= len(s) {
			return "", fmt.Errorf("unterminated string at %d", start)
		}
		i++
		return string(s[start:i]), nil
	}
	// list reads a parenthesised list of labels, i at its '('.
	list := func() ([]string, error) {
		var labels []string
		for i++; ; {
			skipSpace()
			switch {
			case i >= len(s):
				return nil, fmt.Errorf("unterminated label list")
			case s[i] == ')':
				i++
				return labels, nil
			case s[i] == ',':
				i++
			default:
				l := ident()
				if l == "" {
					return nil, fmt.Errorf("unexpected %q in a label list", s[i])
				}
				labels = append(labels, l)
			}
		}
	}
	// matchers reads a {…} block, i at its '{'.
	matchers := func() (map[string]string, error) {
		m := map[string]string{}
		for i++; ; {
			skipSpace()
			switch {
			case i >= len(s):
				return nil, fmt.Errorf("unterminated matchers")
			case s[i] == '}':
				i++
				return m, nil
			case s[i] == ',':
				i++
			default:
				label := ident()
				skipSpace()
				opStart := i
				for i < len(s) && strings.ContainsRune("=!~", s[i]) {
					i++
				}
				op := string(s[opStart:i])
				skipSpace()
				if label == "" || !slices.Contains([]string{"=", "!=", "=~", "!~"}, op) || i >= len(s) || !strings.ContainsRune("\"'`", s[i]) {
					return nil, fmt.Errorf("unreadable matcher at %d", opStart)
				}
				value, err := quoted()
				if err != nil {
					return nil, err
				}
				m[label] = op + value
			}
		}
	}
	for {
		skipSpace()
		if i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"' || c == '\'' || c == '`':
			if _, err := quoted(); err != nil {
				return q, err
			}
		case c == '[':
			// A range or a subquery: durations only.
			end := slices.Index(s[i:], ']')
			if end < 0 {
				return q, fmt.Errorf("unterminated range")
			}
			i += end + 1
		case c == '{':
			return q, fmt.Errorf("a selector without a metric name at %d", i)
		case unicode.IsDigit(c) || c == '.':
			// A number, or the duration after offset.
			for i < len(s) && (unicode.IsLetter(s[i]) || unicode.IsDigit(s[i]) || s[i] == '.') {
				i++
			}
		case c == '_' || c == ':' || unicode.IsLetter(c):
			word := ident()
			skipSpace()
			switch {
			case slices.Contains(labelLists, strings.ToLower(word)):
				if i >= len(s) || s[i] != '(' {
					if strings.HasPrefix(strings.ToLower(word), "group_") {
						continue // group_left and group_right may omit their labels
					}
					return q, fmt.Errorf("%s without its labels", word)
				}
				labels, err := list()
				if err != nil {
					return q, err
				}
				if w := strings.ToLower(word); w == "by" || w == "without" {
					q.by = append(q.by, labels...)
				}
			case slices.Contains(keywords, strings.ToLower(word)) || slices.Contains(aggregations, strings.ToLower(word)):
			case i < len(s) && s[i] == '(':
				// A function or an aggregation: its arguments follow.
			default:
				sel := selector{metric: word}
				if i < len(s) && s[i] == '{' {
					m, err := matchers()
					if err != nil {
						return q, err
					}
					sel.matchers = m
				}
				q.selectors = append(q.selectors, sel)
			}
		default:
			i++ // operators, parentheses, commas
		}
	}
	if len(q.selectors) == 0 {
		return q, fmt.Errorf("no series selected")
	}
	return q, nil
}

func TestParseQueryReadsSelectorsAndGrouping(t *testing.T) {
	q, err := parseQuery(`histogram_quantile(0.99, sum by (operation, le) (rate(ppwr_http_request_duration_seconds_bucket{job="ppwr-serve", status=~"5.."}[5m])))`)
	require.NoError(t, err)
	assert.Equal(t, []selector{{metric: "ppwr_http_request_duration_seconds_bucket", matchers: map[string]string{"job": `="ppwr-serve"`, "status": `=~"5.."`}}}, q.selectors)
	assert.Equal(t, []string{"operation", "le"}, q.by)

	q, err = parseQuery(`sum(rate(a_total[5m] offset 1h)) without(instance) / on (job) group_left sum(b) > bool 0.5`)
	require.NoError(t, err)
	assert.Equal(t, []selector{{metric: "a_total"}, {metric: "b"}}, q.selectors)
	assert.Equal(t, []string{"instance"}, q.by)

	for _, bad := range []string{`sum(rate(x{a="1"[5m]))`, `{__name__="x"}`, `vector(1)`, `x{a=~"unterminated}`} {
		_, err := parseQuery(bad)
		assert.Error(t, err, bad)
	}
}
