package documents

import (
	"net/http"
	"time"

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
				Handle(kit.Do(h.analyze), kit.AcceptedResponse(kit.Ref("AnalysisQueued"))),
			// The decision also needs documents.approve or documents.revoke,
			// depending on the decision in the body; the handler checks that.
			kit.Post("decideDocumentVersion", kit.Org+"/document-versions/{recordId}/decision", tag, a.DocumentsReview, a.DocumentsView).
				Answers(documents.ErrOwnUpload, documents.ErrDocumentNotReviewable, documents.ErrDocumentNotApproved, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.decide), kit.OK(kit.Ref("DocumentVersion"))),
		},
		Models: []kit.Model{kit.ModelOf[analysisJSON]("AnalysisQueued"), kit.ModelOf[analysisStateJSON]("DocumentVersionAnalysis")},
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
const analysisQueued = documents.AnalysisQueued

func (analysisJSON) Declare(s *kit.Shape) { s.Enum("status", analysisQueued) }

// analysisStateJSON is a version's latest analysis run: queued until it
// ends, then completed with the proposals it holds (0 is an answer: the
// text names nothing measurable).
type analysisStateJSON struct {
	Run           int        `json:"run"`
	Status        string     `json:"status"`
	ProposalCount *int       `json:"proposal_count"`
	CompletedAt   *time.Time `json:"completed_at"`
}

func (analysisStateJSON) Declare(s *kit.Shape) { s.Enum("status", documents.AnalysisStatuses...) }

// analysisStateOf is v's latest analysis run, nil before the first (or
// for a run queued before runs recorded their end).
func analysisStateOf(v *documents.DocumentVersion) *analysisStateJSON {
	if v.AnalysisCount == 0 || v.AnalysisStatus == nil {
		return nil
	}
	return &analysisStateJSON{Run: v.AnalysisCount, Status: *v.AnalysisStatus, ProposalCount: v.AnalysisProposalCount,
		CompletedAt: kit.UTC(v.AnalysisCompletedAt)}
}

// analyze numbers a new analysis run, whose workflow's start the command
// records: the answer, 202 with Retry-After, acknowledges the queueing;
// the version's analysis says when the run has ended, and with how many
// proposals.
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
	return kit.Accepted(c, analysisJSON{DocumentVersion: id, Analysis: run.Run, Status: analysisQueued, WorkflowID: run.WorkflowID})
}
