package documents

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	a "ppwr/internal/access"
)

// review declares the review decision on a version and the queueing of
// its analysis.
func (h *handlers) review() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("analyzeDocumentVersion", kit.Org+"/document-versions/{recordId}/analyze", tag, a.EvidenceReview, a.EvidenceReviewPerm).
				Answers(documents.ErrDocumentNotAnalyzable).
				Handle(kit.Do(h.analyze), kit.OK(kit.Ref("AnalysisQueued"))),
			// The decision also needs documents.approve or documents.revoke,
			// depending on the decision in the body; the handler checks that.
			kit.Post("decideDocumentVersion", kit.Org+"/document-versions/{recordId}/decision", tag, a.DocumentsReview, a.DocumentsView).
				Answers(documents.ErrOwnUpload, documents.ErrDocumentNotReviewable, documents.ErrDocumentNotApproved, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.decide), kit.OK(kit.Ref("DocumentVersion"))),
		},
		Models: []kit.Model{kit.ModelOf[analysisJSON]("AnalysisQueued")},
	}
}

// decide checks the permission the decision needs on top of the
// operation's, then applies the state table. Under dual control only an
// owner or admin may approve their own upload.
func (h *handlers) decide(c *gin.Context, in *documents.DocumentDecision) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	cred := kit.State(c).Credential
	needed := a.DocumentsApprove
	if in.Decision.Value == documents.DecisionRevoked {
		needed = a.DocumentsRevoke
	}
	if in.Decision.Set() && !cred.HasPermission(needed) {
		return kit.NewProblem(http.StatusForbidden, kit.CodeMissingPermission, "error.missing_permission", string(needed))
	}
	user := cred.UserID
	v, err := documents.DecideDocumentVersion(kit.Work(c), id, in, documents.Reviewer{
		UserID: &user, SelfApproval: !cred.DualControl || cred.Role.HoldsAllPermissions(),
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, versionRenderer(c)(v))
	return nil
}

type analysisJSON struct {
	DocumentVersion uuid.UUID `json:"document_version"`
	Analysis        int       `json:"analysis"`
	Status          string    `json:"status"`
	WorkflowID      string    `json:"workflow_id"`
}

// analysisQueued is the one status the answer has: the run is queued.
const analysisQueued = "queued"

func (analysisJSON) Declare(s *kit.Shape) { s.Enum("status", analysisQueued) }

// analyze numbers a new analysis run, whose workflow's start the command
// records: the answer acknowledges the queueing; proposals appear later.
func (h *handlers) analyze(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	run, err := documents.RequestAnalysis(w, id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, analysisJSON{DocumentVersion: id, Analysis: run.Run, Status: analysisQueued, WorkflowID: run.WorkflowID})
	return nil
}
