package main

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"go.temporal.io/sdk/testsuite"
	"gorm.io/gorm"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/internal/testenv"
)

// benchRunItems is how many items each run of BenchmarkAssessRun assesses.
const benchRunItems = 2_000

// BenchmarkAssessRun assesses benchRunItems items as the scenario's bulk
// run does, by the run's activity against the test database, and beside it
// by the scenario's plain loop, and reports the CPU time of this process
// and of PostgreSQL per item: on a shared machine those say what a run
// costs where items per second do not.
func BenchmarkAssessRun(b *testing.B) {
	ctx := context.Background()
	db, _, drop, err := testenv.CreateDatabase("ppwr_bench_")
	if err != nil {
		b.Skip("no test database:", err)
	}
	b.Cleanup(drop)
	org, _, err := seedClients(db, 1)
	if err != nil {
		b.Fatal(err)
	}
	template, err := seedAssessedItem(ctx, db, org)
	if err != nil {
		b.Fatal(err)
	}
	if err := cloneItem(ctx, db, org, template, benchRunItems); err != nil {
		b.Fatal(err)
	}
	measure := func(b *testing.B, assess func(b *testing.B) int) {
		var used cpuUse
		items := 0
		for b.Loop() {
			before := cpuNow(db)
			items += assess(b)
			used = used.add(cpuNow(db).sub(before))
		}
		b.ReportMetric(float64(items)/b.Elapsed().Seconds(), "items/s")
		reportCPU(b, used, items, "item")
	}
	b.Run("run", func(b *testing.B) {
		a := &activities.Assessments{DB: db}
		measure(b, func(b *testing.B) int { return benchRun(b, db, a, org) })
	})
	b.Run("loop", func(b *testing.B) {
		measure(b, func(b *testing.B) int {
			if _, err := bareRun(ctx, db, org, benchRunItems); err != nil {
				b.Fatal(err)
			}
			return benchRunItems
		})
	})
}

// benchRun starts a run over the organization's items and runs its
// activity's batches, as the workflow would, until none is left.
func benchRun(b *testing.B, db *gorm.DB, a *activities.Assessments, org uuid.UUID) int {
	ctx := context.Background()
	run, err := assessments.StartAssessmentRun(ctx, db, org, "")
	if err != nil {
		b.Fatal(err)
	}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	in := assessments.AssessmentRunInput{Org: domain.OrgOf(org), RunID: run.ID}
	total := 0
	for {
		res, err := env.ExecuteActivity(a.AssessBatch, in)
		if err != nil {
			b.Fatal(err)
		}
		var n int
		if err := res.Get(&n); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
}
