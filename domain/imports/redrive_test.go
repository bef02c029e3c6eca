package imports_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/imports"
	"ppwr/internal/i18n"
)

// An import is re-driven only while it waits for a workflow: queued for
// its preview, applying for its apply; a failed one is requeued and
// previewed again. The rest are refused, saying why in either language.
func TestRedriveStageOf(t *testing.T) {
	for status, want := range map[string]struct {
		stage   imports.RedriveStage
		requeue bool
	}{
		imports.ImportQueued:       {imports.StagePreview, false},
		imports.ImportFailedStatus: {imports.StagePreview, true},
		imports.ImportApplying:     {imports.StageApply, false},
	} {
		stage, requeue, err := imports.RedriveStageOf(&imports.Import{ID: uuid.New(), Status: status})
		require.NoError(t, err, status)
		assert.Equal(t, want.stage, stage, status)
		assert.Equal(t, want.requeue, requeue, status)
	}

	for status, why := range map[string]string{
		imports.ImportReadyStatus:         "the customer applies it through the API",
		imports.ImportCompletedStatus:     "it has been applied",
		imports.ImportCompletedWithErrors: "it has been applied",
		"archived":                        "the status is unknown to this version",
	} {
		id := uuid.New()
		_, requeue, err := imports.RedriveStageOf(&imports.Import{ID: id, Status: status})
		var refused *domain.RefusedError
		require.ErrorAs(t, err, &refused, status)
		assert.False(t, requeue, status)
		assert.Contains(t, err.Error(), "import "+id.String()+" is "+status+", nothing to re-drive: ", status)
		assert.Contains(t, err.Error(), why, status)
		assert.Contains(t, refused.Message(i18n.PL), "import "+id.String()+" ma status "+status, "the console shows it in Polish")
	}
}
