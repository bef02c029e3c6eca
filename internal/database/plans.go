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

// PlannedForValues runs query with its transaction's statements planned
// for their values (PlanForValues), and the statements after it planned
// as before: a statement that would otherwise settle on a generic plan
// too early, while its table was small, keeps that plan for the life of
// the connection.
func PlannedForValues(tx *gorm.DB, query func() error) error {
	if err := PlanForValues(tx); err != nil {
		return err
	}
	if err := query(); err != nil {
		return err
	}
	return tx.Exec("SET LOCAL plan_cache_mode TO DEFAULT").Error
}
