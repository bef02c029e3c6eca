package imports

import (
	"ppwr/domain"
)

type ImportReady domain.RecordStatus

type ImportCompleted domain.RecordStatus

type ImportFailed domain.RecordStatus

func (ImportReady) EventType() string { return "import.ready" }

func (ImportCompleted) EventType() string { return "import.completed" }

func (ImportFailed) EventType() string { return "import.failed" }
