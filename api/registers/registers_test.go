package registers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/internal/register"
)

var qty = apitest.Quantity

// validValues are a complete, valid entry of each register about w.item.
func validValues(w *world) map[string]map[string]any {
	return apitest.RegisterExamples(apitest.RegisterRefs{Component: w.component, Scenario: w.scenario, Approved: w.approved, Second: w.second})
}

// firstField is the register's first field of a kind, or "" if none.
func firstField(reg *register.Register, match func(register.Field) bool) string {
	for _, f := range reg.Fields {
		if match(f) {
			return f.Name
		}
	}
	return ""
}

func without(values map[string]any, name string) map[string]any {
	out := map[string]any{}
	for k, v := range values {
		if k != name {
			out[k] = v
		}
	}
	return out
}

func with(values map[string]any, name string, value any) map[string]any {
	out := without(values, name)
	out[name] = value
	return out
}

// TestEveryRegister runs the same story through each register: a valid
// entry, every refusal of a typed rule, the four-eyes review, pagination
// and the read.
func TestEveryRegister(t *testing.T) {
	w := newWorld(t, "food_contact")
	valid := validValues(w)
	require.Len(t, valid, len(register.All), "every register has a valid example here")
	for _, reg := range register.All {
		t.Run(reg.Slug, func(t *testing.T) {
			values := valid[reg.Slug]
			require.NotNil(t, values)
			base := "/catalog-items/" + w.item + "/ppwr/" + reg.Slug

			res := w.create(t, reg.Slug, w.entry(t, w.item, values))
			require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
			first := res.JSON
			assert.Equal(t, reg.Slug, first["register"])
			assert.Equal(t, w.item, first["item"])
			assert.Equal(t, "active", first["status"])
			assert.Equal(t, true, first["based_on_current_revision"])
			if reg.Reviewable {
				assert.Equal(t, "unreviewed", first["review_status"])
			} else {
				assert.Equal(t, "not_applicable", first["review_status"])
			}
			for _, f := range reg.Fields {
				assert.Contains(t, first["values"], f.Name, "every field is answered")
			}

			refused := func(body map[string]any, field string) {
				t.Helper()
				res := w.create(t, reg.Slug, body)
				require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
				assert.Contains(t, res.FieldErrors(), field, res.Body.String())
			}
			if name := firstField(reg, func(f register.Field) bool { return f.Required && f.Prefill == "" }); name != "" {
				refused(w.entry(t, w.item, without(values, name)), "values."+name)
			}
			if name := firstField(reg, func(f register.Field) bool { return f.Kind == register.Quantity && values[f.Name] != nil }); name != "" {
				refused(w.entry(t, w.item, with(values, name, qty("1", "furlong"))), "values."+name+".unit")
			}
			body := w.entry(t, w.item, values)
			body["components"] = []string{w.otherComponent}
			refused(body, "components.0")
			body = w.entry(t, w.item, values)
			body["market_scenarios"] = []string{w.otherScenario}
			refused(body, "market_scenarios.0")
			for _, doc := range []string{w.unapproved, w.foreign} {
				body = w.entry(t, w.item, values)
				body["evidence"] = []any{map[string]any{"kind": "document_version", "id": doc}}
				refused(body, "evidence.0.id")
			}
			stale := w.entry(t, w.item, values)
			stale["catalog_revision"] = stale["catalog_revision"].(int) - 1
			assert.Equal(t, http.StatusConflict, w.create(t, reg.Slug, stale).Code)

			body = w.entry(t, w.item, values)
			body["evidence"] = []any{map[string]any{"kind": "document_version", "id": w.approved}}
			res = w.create(t, reg.Slug, body)
			require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
			second := res.JSON

			if reg.Reviewable {
				review := map[string]any{"decision": "accepted", "reason": "Zgodne z raportem", "revision": 1}
				res = w.send(t, w.tn, http.MethodPost, base+"/"+second["id"].(string)+"/review", review)
				require.Equal(t, http.StatusForbidden, res.Code, res.Body.String())
				assert.Equal(t, "separate_reviewer_required", res.ErrorCode())
				res = w.send(t, w.reviewer, http.MethodPost, base+"/"+second["id"].(string)+"/review", review)
				require.Equal(t, http.StatusOK, res.Code, res.Body.String())
				assert.Equal(t, "accepted", res.JSON["review_status"])
				assert.Equal(t, w.reviewer.User.String(), res.JSON["reviewed_by"])
				review["revision"] = 2
				res = w.send(t, w.reviewer, http.MethodPost, base+"/"+second["id"].(string)+"/review", review)
				assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a decided entry is not reviewed twice")
				assert.Equal(t, "entry_already_reviewed", res.ErrorCode())
			}

			res = w.get(t, base+"?per_page=1")
			require.Equal(t, http.StatusOK, res.Code, res.Body.String())
			page := res.JSON["data"].([]any)
			require.Len(t, page, 1)
			assert.Equal(t, second["id"], page[0].(map[string]any)["id"], "newest first")
			assert.Equal(t, second["evidence"], page[0].(map[string]any)["evidence"], "a list resolves evidence as a read does")
			next := res.JSON["links"].(map[string]any)["next"].(string)
			res = w.Do(apitest.Req{Method: http.MethodGet, Path: next[len(apitest.Base):], Token: w.tn.Token})
			require.Equal(t, http.StatusOK, res.Code, res.Body.String())
			assert.Equal(t, first["id"], res.JSON["data"].([]any)[0].(map[string]any)["id"])

			res = w.get(t, base+"/"+second["id"].(string))
			require.Equal(t, http.StatusOK, res.Code, res.Body.String())
			titles := []string{}
			for _, e := range res.JSON["evidence"].([]any) {
				titles = append(titles, e.(map[string]any)["title"].(string))
			}
			assert.Contains(t, strings.Join(titles, "|"), "Raport z badań approved", "evidence is resolved to its document")
		})
	}
}
