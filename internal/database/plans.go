package database

import "gorm.io/gorm"

// PlanForValues has the rest of tx's transaction planned for each
// statement's values. The driver prepares a statement once per connection,
// and from its sixth run PostgreSQL may settle on a generic plan, costed
// without the values. For a statement over an organization's period that
// plan expects a few thousand rows, and on a year of a million it walked
// an index at random in the heap: the BDO summary took 5 to 16 s instead
// of under one. Planning each run costs a fraction of a millisecond.
func PlanForValues(tx *gorm.DB) error {
	return tx.Exec("SET LOCAL plan_cache_mode = force_custom_plan").Error
}
