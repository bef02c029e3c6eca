package movements

import (
	"ppwr/domain"
)

type SupplyEventCreated domain.RecordCreated

type FlowCreated domain.RecordCreated

func (SupplyEventCreated) EventType() string { return "supply_event.created" }

func (FlowCreated) EventType() string { return "flow.created" }
