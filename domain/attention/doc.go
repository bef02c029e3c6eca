// Package attention answers support staff's question "whose work is
// stuck, why, and what can I do", across organizations: the data and the
// actions behind the support console's pages, free of HTTP and of
// Temporal, so the pages only render what it answers.
//
// It sits above every area it reads (the highest tier of the domain): it
// reads their tables, in one query, and calls their own commands for its
// actions, never writing a record itself.
//
//   - kinds.go declares each kind of work that needs a person once: the
//     SQL that finds it, why it needs one and the workflow it names.
//   - list.go: List, every kind's items newest first, filtered by
//     organization and kind, a page at a time (a cursor of time and id).
//     One UNION ALL of the kinds, each taking its page from its own
//     partial index (migration 0048), so a page costs about the same
//     whatever the number of organizations and healthy records.
//   - find.go: Find, one record whatever its state: status, progress,
//     reason, its history from the audit log, the workflow ids to look up
//     in Temporal and the actions its state allows.
//   - actions.go: Perform, the actions of a record (re-drive an import,
//     resend a webhook delivery, retry a report or a BDO export): the
//     same domain commands the admin CLI runs, audited alike (actor
//     operator), refused alike (domain.RefusedError).
//
// "Stuck" is decided without Temporal, from what the records keep: an
// import queued or applying whose progress has not moved for StuckAfter,
// while no start of its workflow is waiting for the relay (such a start,
// once the relay keeps failing it, is a kind of its own). A run that
// works moves its job's progress at least every second, so StuckAfter
// without a move means its run failed, timed out or was terminated, or
// no worker polls its queue. The support console looks the workflow ids
// up in Temporal for the runs themselves.
package attention
