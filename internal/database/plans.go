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
// as they were before, even when the transaction had called PlanForValues
// itself: a statement that would otherwise settle on a generic plan
// too early, while its table was small, keeps that plan for the life of
// the connection.
func PlannedForValues(tx *gorm.DB, query func() error) error {
	var before string
	// Evaluated in the order written, so before is the value set_config
	// replaces.
	if err := tx.Raw("SELECT current_setting('plan_cache_mode'), set_config('plan_cache_mode', 'force_custom_plan', true)").
		Row().Scan(&before, new(string)); err != nil {
		return err
	}
	if err := query(); err != nil {
		return err
	}
	return tx.Exec("SELECT set_config('plan_cache_mode', ?, true)", before).Error
}
