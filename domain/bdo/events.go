package bdo

import (
	"ppwr/domain"
)

type BDOReportPrepared domain.RecordStatus

func (BDOReportPrepared) EventType() string { return "bdo_report.prepared" }
