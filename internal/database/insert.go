package database

import (
	"context"
	"database/sql/driver"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/schema"
)

// insertPlan is a model's INSERT of every column, rendered once.
type insertPlan struct {
	into    string // INSERT INTO t (columns)
	table   string
	columns []string
	sql     string
	fields  []insertField
}

// insertField is how Insert reads a column's value from a row.
type insertField struct {
	*schema.Field
	// index is the field's index in the row's struct, read directly; -1
	// for a field of an embedded struct, which GORM reads (ValueOf). GORM's
	// reader also asks every value whether it is zero, which only an
	// auto-timestamp needs.
	index int
	// stamped is an auto-timestamp, set to now when zero.
	stamped bool
	// nilAsNull marks a pointer field whose nil is rendered as an
	// untyped nil: pgx sends either as NULL, but finds out for a typed
	// nil pointer by reflection on every value (isNilDriverValuer asks
	// whether the pointer type itself is a driver.Valuer), which was a
	// tenth of the CPU time of COPYing an import's items.
	nilAsNull bool
}

// insertPlans caches an *insertPlan per model type, or nil for a type
// GORM must render itself.
var insertPlans sync.Map

// Insert renders the INSERT of row as GORM's Create does (BeforeSave and
// BeforeCreate hooks, zero auto-timestamps set to now, every column
// written) from a statement text rendered once per type: GORM rebuilds it
// clause by clause on every call, which was a third of a catalogue create's
// CPU time. A type with associations, serializers or database-side
// defaults, whose columns GORM chooses row by row, is rendered by GORM.
func Insert(db *gorm.DB, row any) (Statement, error) {
	plan, err := planInsert(db, row)
	if err != nil {
		return Statement{}, err
	}
	if plan == nil {
		return renderCreate(db, row)
	}
	if hook, ok := row.(callbacks.BeforeSaveInterface); ok {
		if err := hook.BeforeSave(db); err != nil {
			return Statement{}, err
		}
	}
	if hook, ok := row.(callbacks.BeforeCreateInterface); ok {
		if err := hook.BeforeCreate(db); err != nil {
			return Statement{}, err
		}
	}
	ctx := context.Background()
	rv := reflect.Indirect(reflect.ValueOf(row))
	vars := make([]any, len(plan.fields))
	for i, f := range plan.fields {
		var zero bool
		if f.index < 0 {
			vars[i], zero = f.ValueOf(ctx, rv)
		} else {
			v := rv.Field(f.index)
			vars[i], zero = v.Interface(), (f.stamped || f.nilAsNull) && v.IsZero()
		}
		switch {
		case zero && f.stamped:
			if err := f.Set(ctx, rv, db.NowFunc()); err != nil {
				return Statement{}, err
			}
			vars[i], _ = f.ValueOf(ctx, rv)
		case zero && f.nilAsNull:
			vars[i] = nil
		}
	}
	return Statement{SQL: plan.sql, Vars: vars, plan: plan}, nil
}

func planInsert(db *gorm.DB, row any) (*insertPlan, error) {
	t := reflect.TypeOf(row)
	if cached, ok := insertPlans.Load(t); ok {
		return cached.(*insertPlan), nil
	}
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(row); err != nil {
		return nil, err
	}
	s := stmt.Schema
	var plan *insertPlan
	if len(s.Relationships.Relations) == 0 && len(s.FieldsWithDefaultDBValue) == 0 {
		plan = &insertPlan{table: s.Table}
		quoted, params := make([]string, 0, len(s.DBNames)), make([]string, 0, len(s.DBNames))
		for _, name := range s.DBNames {
			f := s.FieldsByDBName[name]
			if f.Serializer != nil || f.HasDefaultValue {
				plan = nil
				break
			}
			if !f.Creatable {
				continue
			}
			index := -1
			if len(f.StructField.Index) == 1 {
				index = f.StructField.Index[0]
			}
			plan.fields = append(plan.fields, insertField{Field: f, index: index,
				stamped: f.AutoCreateTime > 0 || f.AutoUpdateTime > 0, nilAsNull: nilIsNull(f.FieldType)})
			plan.columns = append(plan.columns, name)
			quoted = append(quoted, stmt.Quote(name))
			params = append(params, "$"+strconv.Itoa(len(params)+1))
		}
		if plan != nil {
			plan.into = "INSERT INTO " + stmt.Quote(s.Table) + " (" + strings.Join(quoted, ",") + ")"
			plan.sql = plan.into + " VALUES (" + strings.Join(params, ",") + ")"
		}
	}
	insertPlans.Store(t, plan)
	return plan, nil
}

// nilIsNull reports whether pgx sends a nil of type t as NULL without
// calling a method on it: t is a pointer, and not one whose own method
// set alone makes it a driver.Valuer.
func nilIsNull(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer {
		return false
	}
	return !t.Implements(valuerType) || t.Elem().Implements(valuerType)
}

var valuerType = reflect.TypeFor[driver.Valuer]()

// renderCreate renders GORM's own Create of row without executing it.
func renderCreate(db *gorm.DB, row any) (Statement, error) {
	rendered := db.Session(&gorm.Session{DryRun: true, NewDB: true}).Create(row)
	if rendered.Error != nil {
		return Statement{}, rendered.Error
	}
	return Statement{SQL: rendered.Statement.SQL.String(), Vars: rendered.Statement.Vars}, nil
}
