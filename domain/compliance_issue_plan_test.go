package domain

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

// A resolve finds the open issues of its subjects by the index, whatever
// the statistics say: here they say the table is empty (analysed before
// the issues came, as where autovacuum is off), which once made each
// resolve of a bulk assessment run read every open issue of the
// organization, ever more as the run went on.
func TestResolveFindsSubjectsByIndexWithStaleStatistics(t *testing.T) {
	db := testenv.DB(t)
	org := NewID()
	require.NoError(t, db.Exec(`INSERT INTO organizations (id, name, slug) VALUES (?, 'Plan', ?)`, org, "plan-"+org.String()[:8]).Error)
	require.NoError(t, db.Exec(`ANALYZE compliance_issues`).Error)
	require.NoError(t, db.Exec(`INSERT INTO compliance_issues (id, organization_id, kind, severity, status, subject_type, subject_id, message_key)
		SELECT gen_random_uuid(), ?, ?, 'medium', 'open', 'ppwr_rule', gen_random_uuid(), 'issue.ppwr_rule_finding'
		FROM generate_series(1, 20000)`, org, IssueRuleFinding).Error)

	require.ErrorIs(t, db.Transaction(func(tx *gorm.DB) error {
		// A generic plan, as the pool's prepared statement gets after a
		// few runs.
		require.NoError(t, tx.Exec(`SET LOCAL plan_cache_mode = force_generic_plan`).Error)
		var plan []string
		require.NoError(t, tx.Raw(`EXPLAIN (ANALYZE, COSTS OFF) `+resolveOpenIssues, IssueResolved, Now(), "issue.resolved_by_assessment",
			org, IssueRuleFinding, []uuid.UUID{uuid.New(), uuid.New()}).Scan(&plan).Error)
		text := strings.Join(plan, "\n")
		assert.Contains(t, text, "Index Cond: ((subject_id = ANY", text)
		assert.NotContains(t, text, "Rows Removed by Filter", text)
		return gorm.ErrInvalidTransaction // roll back
	}), gorm.ErrInvalidTransaction)
}

// Each resolve is planned for its own subjects: the pool's prepared
// statement, run on one connection while the table was small, settled on
// a generic plan that read every open issue of the organization, and kept
// it while a bulk assessment run filled the table.
func TestResolveIsPlannedForItsSubjects(t *testing.T) {
	db := testenv.DB(t)
	org := NewID()
	require.NoError(t, db.Exec(`INSERT INTO organizations (id, name, slug) VALUES (?, 'Plan', ?)`, org, "plan-"+org.String()[24:]).Error)
	w := work.New(context.Background(), db, work.Actor{Kind: work.ActorSystem, OrganizationID: org})
	defer w.Rollback()
	for range 10 {
		require.NoError(t, ResolveIssuesOf(w, IssueRuleFinding, []uuid.UUID{uuid.New(), uuid.New()}, "issue.resolved_by_assessment"))
	}
	var plans struct{ Generic, Custom int }
	require.NoError(t, w.Tx().Raw(`SELECT coalesce(sum(generic_plans), 0) AS generic, coalesce(sum(custom_plans), 0) AS custom
		FROM pg_prepared_statements WHERE statement LIKE 'UPDATE compliance_issues SET status%'`).Scan(&plans).Error)
	assert.Zero(t, plans.Generic)
	assert.GreaterOrEqual(t, plans.Custom, 10)
}
