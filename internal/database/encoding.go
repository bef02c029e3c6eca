package database

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// encodeDirectly teaches a connection's type map to send uuid.UUID and
// decimal.Decimal parameters in PostgreSQL's binary formats. Without it pgx
// reaches them through driver.Valuer: the text the Valuer returns is
// refused by the binary encoder, an error is built, and the text is parsed
// back, for every parameter; in the benchmark that was a tenth of the
// process's CPU time.
func encodeDirectly(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{
		encodeAs(func(u uuid.UUID) any { return pgtype.UUID{Bytes: u, Valid: true} }),
		encodeAs(func(d decimal.Decimal) any {
			return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
		}),
	}, m.TryWrapEncodePlanFuncs...)
}

// encodeAs encodes values of type T as the pgtype value convert returns.
func encodeAs[T any](convert func(T) any) pgtype.TryWrapEncodePlanFunc {
	return func(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
		v, ok := value.(T)
		if !ok {
			return nil, nil, false
		}
		return &convertPlan[T]{convert: convert}, convert(v), true
	}
}

type convertPlan[T any] struct {
	next    pgtype.EncodePlan
	convert func(T) any
}

func (p *convertPlan[T]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *convertPlan[T]) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(p.convert(value.(T)), buf)
}

// Array binds a slice as one array parameter, in PostgreSQL's binary
// format: GORM would expand a slice into a list of parameters, one each,
// and pq's array types travel as text, which pgx parses back into values
// before encoding them.
func Array[T any](elements []T) pgtype.Array[T] {
	return pgtype.Array[T]{Elements: elements, Dims: []pgtype.ArrayDimension{{Length: int32(len(elements)), LowerBound: 1}}, Valid: true}
}
