// Package e2e holds the end-to-end test of the production topology: the
// ppwr binary built as it ships, two `ppwr serve` and two `ppwr worker`
// processes on one PostgreSQL database, one Temporal and one S3 store, one
// of the workers killed mid-import.
//
// It is a package of its own, not a test of cmd/ppwr, because testenv
// gives each test binary its own database, Temporal dev server and
// bucket. The workers' relays take every recorded workflow start and
// every outbox event of their database, and the test counts every
// workflow start, every Temporal run and every schedule of its namespace:
// in cmd/ppwr, whose tests share one database and one Temporal, the
// relays would take the starts other tests record for their own workers,
// and the counts would include those tests' work.
package e2e
