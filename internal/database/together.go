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
	// into is the "INSERT INTO t (columns)" of an INSERT rendered from a
	// plan, whose SQL is into + " VALUES (...)"; "" for any other.
	into string
}

// ExecTogether runs statements in db (a transaction or the pool) as one SQL
// statement, so they cost one round trip instead of one each: every
// statement becomes a data-modifying WITH query, its parameters
// renumbered. They all see the snapshot taken before the statement, so
// none may read or update another's rows; foreign keys are checked at the
// end of the statement, so one row may reference another. None may
// contain a '$' outside its parameters (values travel as parameters).
//
// Inserts into one table rendered by Insert are merged into one multi-row
// INSERT first: an import's batch defers hundreds of rows, and PostgreSQL
// plans a statement of hundreds of WITH queries far slower than a few
// multi-row ones.
func ExecTogether(ctx context.Context, db *gorm.DB, stmts ...Statement) error {
	stmts = mergeInserts(stmts)
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

// mergeInserts merges the inserts into each table into one, in the place of
// the first; other statements are kept as they are.
func mergeInserts(stmts []Statement) []Statement {
	out := make([]Statement, 0, len(stmts))
	rows := map[string]*strings.Builder{} // into → its VALUES list so far
	at := map[string]int{}                // into → its place in out
	for _, stmt := range stmts {
		values, seen := rows[stmt.into]
		switch {
		case stmt.into == "":
			out = append(out, stmt)
		case !seen:
			values = &strings.Builder{}
			values.WriteString(stmt.SQL)
			rows[stmt.into], at[stmt.into] = values, len(out)
			out = append(out, Statement{Vars: stmt.Vars, into: stmt.into})
		default:
			merged := &out[at[stmt.into]]
			values.WriteString(", ")
			renumber(values, strings.TrimPrefix(stmt.SQL, stmt.into+" VALUES "), len(merged.Vars))
			merged.Vars = append(merged.Vars, stmt.Vars...)
		}
	}
	for into, values := range rows {
		out[at[into]].SQL = values.String()
	}
	return out
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
