package database

import (
	"context"
	"strconv"
	"strings"

	"gorm.io/gorm"
)

// Statement is a write rendered to SQL with PostgreSQL positional
// parameters ($1, $2, ...), not yet executed.
type Statement struct {
	SQL  string
	Vars []any
}

// ExecTogether runs statements in db (a transaction or the pool) as one SQL
// statement, so they cost one round trip instead of one each: every
// statement becomes a data-modifying WITH query, its parameters
// renumbered. They all see the snapshot taken before the statement, so
// none may read or update another's rows; foreign keys are checked at the
// end of the statement, so one row may reference another. None may
// contain a '$' outside its parameters (values travel as parameters).
func ExecTogether(ctx context.Context, db *gorm.DB, stmts ...Statement) error {
	if len(stmts) == 0 {
		return nil
	}
	var (
		sql  strings.Builder
		vars []any
	)
	for i, stmt := range stmts {
		if i == 0 {
			sql.WriteString("WITH ")
		} else {
			sql.WriteString(", ")
		}
		sql.WriteString("w" + strconv.Itoa(i) + " AS (")
		renumber(&sql, stmt.SQL, len(vars))
		sql.WriteString(")")
		vars = append(vars, stmt.Vars...)
	}
	sql.WriteString(" SELECT")
	_, err := db.Statement.ConnPool.ExecContext(ctx, sql.String(), vars...)
	return err
}

// renumber writes sql with every parameter $n shifted to $(n+offset).
func renumber(out *strings.Builder, sql string, offset int) {
	for {
		i := strings.IndexByte(sql, '$')
		if i < 0 {
			out.WriteString(sql)
			return
		}
		out.WriteString(sql[:i+1])
		sql = sql[i+1:]
		end := 0
		for end < len(sql) && sql[end] >= '0' && sql[end] <= '9' {
			end++
		}
		if n, err := strconv.Atoi(sql[:end]); err == nil {
			out.WriteString(strconv.Itoa(n + offset))
		}
		sql = sql[end:]
	}
}
