package carbon

import (
	"ppwr/domain"
)

type CarbonCalculationCreated domain.RecordCreated

type CarbonFactorCreated domain.RecordCreated

func (CarbonCalculationCreated) EventType() string { return "carbon_calculation.created" }

func (CarbonFactorCreated) EventType() string { return "carbon_factor.created" }

type CarbonFactorArchived domain.RecordStatus

func (CarbonFactorArchived) EventType() string { return "carbon_factor.archived" }
