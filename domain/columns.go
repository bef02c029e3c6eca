package domain

import (
	"reflect"
	"strings"
	"sync"

	"gorm.io/gorm"
)

// columnLists caches SelectAs's answers by model type, alias and prefix.
var columnLists sync.Map

type columnList struct {
	model         reflect.Type
	alias, prefix string
}

// SelectAs is the select list of every column of model's table, read
// from alias and named with prefix: what a query joining several tables
// selects so that each lands in a field embedded with that prefix
// (gorm:"embedded;embeddedPrefix:<prefix>"), where the tables' column
// names would collide.
func SelectAs(db *gorm.DB, model any, alias, prefix string) (string, error) {
	key := columnList{reflect.TypeOf(model), alias, prefix}
	if cached, ok := columnLists.Load(key); ok {
		return cached.(string), nil
	}
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(model); err != nil {
		return "", err
	}
	columns := make([]string, len(stmt.Schema.DBNames))
	for i, name := range stmt.Schema.DBNames {
		columns[i] = alias + "." + stmt.Quote(name) + " AS " + stmt.Quote(prefix+name)
	}
	list := strings.Join(columns, ", ")
	columnLists.Store(key, list)
	return list, nil
}
