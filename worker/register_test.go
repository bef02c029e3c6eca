package worker_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"ppwr/worker"
	"ppwr/workflows"
)

// registry records what Register registers; the methods it does not
// override are never called (a nil interface would panic).
type registry struct {
	sdkworker.Registry
	workflows  map[string]any
	activities map[reflect.Type]int
}

func (r *registry) RegisterWorkflowWithOptions(w any, o workflow.RegisterOptions) {
	r.workflows[o.Name] = w
}

func (r *registry) RegisterActivity(a any) { r.activities[reflect.TypeOf(a)]++ }

func TestEveryDefinitionIsRegisteredUnderItsUniqueType(t *testing.T) {
	r := &registry{workflows: map[string]any{}, activities: map[reflect.Type]int{}}
	worker.Register(r, worker.Deps{})

	types := map[string]bool{}
	uses := map[reflect.Type]bool{}
	for _, def := range workflows.Definitions {
		assert.NotEmpty(t, def.Type)
		assert.False(t, types[def.Type], "type %s is defined twice", def.Type)
		types[def.Type] = true
		if assert.Contains(t, r.workflows, def.Type) {
			assert.Equal(t, reflect.ValueOf(def.Workflow).Pointer(), reflect.ValueOf(r.workflows[def.Type]).Pointer(),
				"%s is registered with its own function", def.Type)
		}
		for _, build := range def.Activities {
			uses[reflect.TypeOf(build(worker.Deps{}))] = true
		}
	}
	assert.Len(t, r.workflows, len(workflows.Definitions), "nothing is registered that is not defined")
	for typ := range uses {
		assert.Equal(t, 1, r.activities[typ], "%s is registered once", typ)
	}
	assert.Len(t, r.activities, len(uses))
	for _, name := range []string{"Housekeeping", "DeliverWebhook"} {
		assert.Contains(t, types, name, "schedules and relayed workflows are in the list too")
	}
}
