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
	// plan is the plan of an INSERT rendered by Insert, whose SQL is
	// plan.into + " VALUES (...)"; nil for any other.
	plan *insertPlan
}

// copyFrom is the number of rows into one table from which ExecTogether
// writes them by COPY in a transaction. From about there COPY costs both
// PostgreSQL and this process less than the rows' share of a multi-row
// INSERT, which binds every value as a parameter (at 300 rows a third
// less); below, a COPY of its own costs more than the one statement.
const copyFrom = 100

// ExecTogether runs statements in db (a transaction or the pool) as one SQL
// statement, so they cost one round trip instead of one each: every
// statement becomes a data-modifying WITH query, its parameters
// renumbered. They all see the snapshot taken before the statement, so
// none may read or update another's rows; foreign keys are checked at the
// end of the statement, so one row may reference another. None may
// contain a '$' outside its parameters (values travel as parameters).
//
// Inserts into one table rendered by Insert are merged into one multi-row
// INSERT, in the place of the first: an import's batch defers hundreds of
// rows, and PostgreSQL plans a statement of hundreds of WITH queries far
// slower than a few multi-row ones. Their rows' parameters are numbered as
// they are written, without reading their text.
//
// In a transaction, copyFrom rows or more into one table are written by
// COPY instead, in their place: the statements before them in one
// statement, then the COPY, then the statements after. A row so copied
// may reference rows written before it, not after.
func ExecTogether(ctx context.Context, db *gorm.DB, stmts ...Statement) error {
	queries := groupInserts(stmts)
	if len(queries) == 0 {
		return nil
	}
	ctx, w := watch(ctx)
	defer w.Stop()
	tx, _ := db.Statement.ConnPool.(*boundedTx)
	from := 0
	for i, q := range queries {
		if tx == nil || q[0].plan == nil || len(q) < copyFrom {
			continue
		}
		if err := execWith(ctx, db, queries[from:i]); err != nil {
			return w.Err(err)
		}
		if err := copyRows(ctx, tx, q); err != nil {
			return w.Err(err)
		}
		from = i + 1
	}
	return w.Err(execWith(ctx, db, queries[from:]))
}

// execWith runs queries as one statement of WITH queries.
func execWith(ctx context.Context, db *gorm.DB, queries [][]Statement) error {
	if len(queries) == 0 {
		return nil
	}
	// Sized once: a catalogue create's statement is some 2 kB with 60
	// parameters, an import batch's far more, and growing both as they
	// are written copied them several times.
	size, params := 16, 0
	for _, q := range queries {
		size += len(q[0].SQL) + 12
		for _, row := range q {
			params += len(row.Vars)
			size += 4 * len(row.Vars)
		}
	}
	var (
		sql    strings.Builder
		vars   = make([]any, 0, params)
		digits [20]byte
		number = digits[:0]
	)
	sql.Grow(size)
	for i, q := range queries {
		if i == 0 {
			sql.WriteString("WITH ")
		} else {
			sql.WriteString(", ")
		}
		// Written piece by piece: concatenated, each piece was copied twice.
		sql.WriteByte('w')
		number = strconv.AppendInt(number[:0], int64(i), 10)
		sql.Write(number)
		sql.WriteString(" AS (")
		if q[0].plan == nil {
			renumber(&sql, q[0].SQL, len(vars))
			vars = append(vars, q[0].Vars...)
		} else {
			sql.WriteString(q[0].plan.into)
			sql.WriteString(" VALUES ")
			for r, row := range q {
				if r > 0 {
					sql.WriteString(", ")
				}
				sql.WriteByte('(')
				for p, v := range row.Vars {
					if p > 0 {
						sql.WriteByte(',')
					}
					vars = append(vars, v)
					number = strconv.AppendInt(append(number[:0], '$'), int64(len(vars)), 10)
					sql.Write(number)
				}
				sql.WriteByte(')')
			}
		}
		sql.WriteString(")")
	}
	sql.WriteString(" SELECT")
	ctx, span := statementSpan(ctx)
	_, err := db.Statement.ConnPool.ExecContext(ctx, sql.String(), vars...)
	if span != nil {
		endStatement(span, sql.String(), togetherTables(queries), err)
	}
	return err
}

// copyRows writes inserts into one table, rendered by Insert, by COPY on
// the transaction's connection.
func copyRows(ctx context.Context, tx *boundedTx, q []Statement) error {
	rows := make([][]any, len(q))
	for i := range q {
		rows[i] = q[i].Vars
	}
	plan := q[0].plan
	ctx, span := statementSpan(ctx)
	err := copyOn(ctx, tx.conn, plan.table, plan.columns, rows)
	if span != nil {
		endStatement(span, "COPY "+plan.table+" ("+strings.Join(plan.columns, ", ")+") FROM STDIN", plan.table, err)
	}
	return err
}

// togetherTables names the tables a together statement writes, for its span.
func togetherTables(queries [][]Statement) string {
	var tables []string
	for _, q := range queries {
		if q[0].plan != nil {
			tables = append(tables, q[0].plan.table)
		}
	}
	return strings.Join(tables, ",")
}

// groupInserts groups the inserts into each table rendered by Insert, in
// the place of the first; any other statement is a group of its own.
func groupInserts(stmts []Statement) [][]Statement {
	var out [][]Statement
	at := map[*insertPlan]int{} // plan → its group in out
	for _, stmt := range stmts {
		if i, ok := at[stmt.plan]; ok && stmt.plan != nil {
			out[i] = append(out[i], stmt)
			continue
		}
		if stmt.plan != nil {
			at[stmt.plan] = len(out)
		}
		out = append(out, []Statement{stmt})
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
