package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain/records"
)

// Outcomes of an authority request's run whose bundle was built.
const (
	OutcomeAnswered = "answered"
	OutcomeReminded = "reminded"
)

// AuthorityRequestAnsweredSignal tells a request's workflow that the
// request was answered: no reminder can follow.
const AuthorityRequestAnsweredSignal = "authority-request-answered"

// AuthorityRequest assembles the request's documentation bundle, then
// waits on a durable timer until AuthorityReminderDays before the due
// date and opens the reminder issue if the request is still not answered.
// A request recorded as answered has no wait; one marked answered later
// ends it (AuthorityRequestAnsweredSignal, or the request read as the
// wait begins: recordEnd). The reminder checks the record all the same.
// A bundle that cannot be built is recorded as failed and the deadline is
// kept regardless: the answer is due whether or not the service built
// its bundle. The workflow then ends with the build's error.
//
// Its outcome is the bundle's failure, else whether the request was
// answered in time (OutcomeAnswered) or reminded (OutcomeReminded).
func AuthorityRequest(ctx workflow.Context, in records.AuthorityRequestInput) error {
	var a *activities.AuthorityRequests
	answered := workflow.GetSignalChannel(ctx, AuthorityRequestAnsweredSignal)
	bundle, built := buildOrFail(ctx, a.BuildAuthorityBundle, a.FailAuthorityBundle, in)
	end := func(outcome string) error {
		if bundle != OutcomeCompleted {
			outcome = bundle
		}
		if outcome != "" {
			setOutcome(ctx, outcome)
		}
		return built
	}
	if in.Answered || answered.ReceiveAsync(nil) {
		return end(OutcomeAnswered)
	}
	record := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute}})
	answeredFirst := recordEnd{signal: AuthorityRequestAnsweredSignal, status: a.AuthorityRequestDeadlineStatus, ended: records.Answered}
	ended, _, err := answeredFirst.waitUntil(record, in, in.DueOn.AddDate(0, 0, -records.AuthorityReminderDays))
	if err != nil {
		return err
	}
	if ended {
		return end(OutcomeAnswered)
	}
	if err := workflow.ExecuteActivity(record, a.OpenAuthorityRequestDueIssue, in).Get(ctx, nil); err != nil {
		return err
	}
	return end(OutcomeReminded)
}

// AuthorityRequestAnswered signals the request's workflow that the
// request was answered. It is a workflow, started durably with the change
// that marked the request answered, so that the signal survives a crash
// right after the commit; a workflow whose wait is over has nothing to
// stop.
func AuthorityRequestAnswered(ctx workflow.Context, in records.AuthorityRequestInput) error {
	return signalRun(ctx, records.AuthorityRequestWorkflow.ID(in), AuthorityRequestAnsweredSignal, nil)
}
