package documents_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
)

// A supplier's file attached to a request's line through the API, then
// approved and its evidence accepted, lets the line be accepted; the
// request completes when its last line is.
func TestALineIsAcceptedOnlyOnceItsDocumentAndEvidenceAre(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Pudełko")
	party := d.post(t, d.tn, "/parties", map[string]any{"name": "Kartonex", "roles": []string{"supplier"}, "country": "PL", "email": "o@kartonex.example"})
	require.Equal(t, http.StatusCreated, party.Code, party.Body.String())
	due := time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)
	req := d.post(t, d.tn, "/supplier-requests", map[string]any{"party": party.JSON["id"], "language": "pl", "due_on": due,
		"lines": []map[string]any{
			{"item": item, "document_type": "specification_sheet", "measurement_codes": []string{"MASS_G"}},
			{"item": item, "document_type": "supplier_declaration"},
		}})
	require.Equal(t, http.StatusCreated, req.Code, req.Body.String())
	request := req.JSON["id"].(string)
	lines := d.get(t, "/supplier-requests/"+request+"/lines")["data"].([]any)
	first, second := lines[0].(map[string]any)["id"].(string), lines[1].(map[string]any)["id"].(string)
	review := func(line string, revision any, body map[string]any) *apitest.Response {
		body["revision"] = revision
		return d.post(t, d.tn, "/supplier-requests/"+request+"/lines/"+line+"/review", body)
	}

	res := review(first, 1, map[string]any{"decision": "accepted"})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	assert.Equal(t, "line_not_evidenced", res.ErrorCode())
	assert.Contains(t, res.FieldErrors(), "document_type")
	assert.Contains(t, res.FieldErrors(), "measurement_codes.MASS_G")

	up := d.upload(t, d.tn, "/documents", map[string]string{"document_type": "specification_sheet", "title": "Karta od dostawcy",
		"supplier_request": request, "supplier_request_line": first}, "karta.pdf", fixtureFile(t, "measurements.pdf"))
	require.Equal(t, http.StatusCreated, up.Code, up.Body.String())
	v := d.processed(t, up.JSON["id"].(string))
	assert.Equal(t, item, d.get(t, "/documents/"+v["document"].(string))["catalog_item"], "a line's document is about the line's item")
	line := d.get(t, "/supplier-requests/"+request+"/lines")["data"].([]any)[0].(map[string]any)
	assert.Equal(t, "answered", line["status"])
	assert.Equal(t, []any{v["id"]}, line["documents"])

	proposal := d.propose(t, v, map[string]any{"code": "MASS_G", "value": "12.5", "unit": "g", "source_page": 1, "source_text": "Masa opakowania: 12,5 g"})
	require.Equal(t, http.StatusCreated, proposal.Code, proposal.Body.String())
	res = review(first, 1, map[string]any{"decision": "accepted"})
	assert.Contains(t, res.FieldErrors(), "document_type", "the document is not approved yet")
	assert.Contains(t, res.FieldErrors(), "measurement_codes.MASS_G", "the evidence is not accepted yet")

	v = d.get(t, "/document-versions/"+v["id"].(string))
	require.Equal(t, http.StatusOK, decide(d, t, d.tn, v, map[string]any{"decision": "approved", "revision": v["revision"]}).Code)
	require.Equal(t, http.StatusOK, d.decideProposal(t, proposal.JSON, map[string]any{"decision": "accepted", "revision": 1, "note": "ok"}).Code)
	res = review(first, 1, map[string]any{"decision": "accepted"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "accepted", res.JSON["line"].(map[string]any)["status"])
	assert.Equal(t, "draft", res.JSON["request"].(map[string]any)["status"], "a line is still open")
	assert.Equal(t, http.StatusConflict, review(second, 1, map[string]any{"decision": "rejected", "reason": "x"}).Code, "the request's revision moved")

	res = review(second, 2, map[string]any{"decision": "rejected"})
	assert.Contains(t, res.FieldErrors(), "reason")
	res = review(second, 2, map[string]any{"decision": "rejected", "reason": "brak podpisu"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	issues := d.get(t, "/issues?kind=supplier_line_rejected&status=open")["data"].([]any)
	require.Len(t, issues, 1, "a rejected line is an issue")
	assert.Contains(t, issues[0].(map[string]any)["message"], "brak podpisu")
	res = review(second, 3, map[string]any{"decision": "accepted"})
	assert.Equal(t, "line_not_evidenced", res.ErrorCode(), "a rejected line is reviewed again, against its files")
	res = review(first, 3, map[string]any{"decision": "rejected", "reason": "late"})
	assert.Equal(t, "line_decided", res.ErrorCode(), "an accepted line is final")

	up = d.upload(t, d.tn, "/documents", map[string]string{"document_type": "supplier_declaration", "title": "Deklaracja z podpisem",
		"supplier_request": request, "supplier_request_line": second}, "d.txt", []byte("Deklaracja z podpisem."))
	require.Equal(t, http.StatusCreated, up.Code, up.Body.String())
	v = d.processed(t, up.JSON["id"].(string))
	require.Equal(t, http.StatusOK, decide(d, t, d.tn, v, map[string]any{"decision": "approved", "revision": v["revision"]}).Code)
	res = review(second, 3, map[string]any{"decision": "accepted"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "completed", res.JSON["request"].(map[string]any)["status"], "every line is accepted")
	assert.Empty(t, d.get(t, "/issues?kind=supplier_line_rejected&status=open")["data"], "the acceptance resolves the rejection's issue")
	assert.Contains(t, d.EventTypes(d.tn.Org), "supplier_request_line.reviewed")
}

func TestAWholeRequestCompletesWithItsLastLine(t *testing.T) {
	d := newDocs(t)
	item := d.newItem(t, "Pudełko")
	party := d.post(t, d.tn, "/parties", map[string]any{"name": "Kartonex", "roles": []string{"supplier"}, "country": "PL", "email": "o@kartonex.example"})
	require.Equal(t, http.StatusCreated, party.Code)
	req := d.post(t, d.tn, "/supplier-requests", map[string]any{"party": party.JSON["id"], "language": "en",
		"due_on": time.Now().UTC().Format(time.DateOnly), "lines": []map[string]any{{"item": item, "document_type": "supplier_declaration"}}})
	require.Equal(t, http.StatusCreated, req.Code, req.Body.String())
	request := req.JSON["id"].(string)
	line := d.get(t, "/supplier-requests/"+request+"/lines")["data"].([]any)[0].(map[string]any)["id"].(string)
	up := d.upload(t, d.tn, "/documents", map[string]string{"document_type": "supplier_declaration", "title": "Declaration",
		"supplier_request": request, "supplier_request_line": line}, "d.txt", []byte("We declare conformity."))
	require.Equal(t, http.StatusCreated, up.Code, up.Body.String())
	v := d.processed(t, up.JSON["id"].(string))
	require.Equal(t, http.StatusOK, decide(d, t, d.tn, v, map[string]any{"decision": "approved", "revision": v["revision"]}).Code)

	res := d.post(t, d.tn, "/supplier-requests/"+request+"/lines/"+line+"/review", map[string]any{"decision": "accepted", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	r := res.JSON["request"].(map[string]any)
	assert.Equal(t, "completed", r["status"])
	assert.NotNil(t, r["completed_at"])

	res = d.upload(t, d.tn, "/documents", map[string]string{"document_type": "other", "title": "Late", "supplier_request": request}, "l.txt", []byte("late"))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a closed request takes no files through the API")
	assert.Contains(t, res.FieldErrors(), "supplier_request")
}
