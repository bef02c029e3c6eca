package database

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"gorm.io/gorm"

	"ppwr/internal/telemetry"
)

var tracer = telemetry.Tracer("ppwr/sql")

// statementStart is every statement span's kind and system, made once
// rather than per statement.
var statementStart = []trace.SpanStartOption{
	trace.WithSpanKind(trace.SpanKindClient),
	trace.WithAttributes(attribute.String("db.system.name", "postgresql")),
}

// statementSpan starts the span of one statement in ctx's trace, or none
// (nil) when ctx's span does not record: tracing is off (the global no-op
// provider never makes one), or the sampler left the trace out, whose
// statements would not be recorded either. It returns the context to run
// the statement in.
func statementSpan(ctx context.Context) (context.Context, trace.Span) {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx, nil
	}
	return tracer.Start(ctx, "sql", statementStart...)
}

// endStatement names the statement's span by the statement's first word
// and table ("INSERT catalog_items"), records the SQL (its placeholders,
// never the arguments, which carry customers' data) and the error, and
// ends it. The rows returned are not recorded: an opt-in attribute of the
// conventions, and every attribute is paid for again in each export.
func endStatement(span trace.Span, query, table string, err error) {
	verb, _, _ := strings.Cut(strings.TrimSpace(query), " ")
	name := strings.ToUpper(verb)
	if table != "" {
		name += " " + table
	}
	span.SetName(name)
	span.SetAttributes(attribute.String("db.query.text", query))
	if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// spanOf keys a GORM statement's span in its Settings from its before
// callback to its after callback (one per statement, as InstanceSet's
// keys are). The span is not read back from the statement's context:
// the bound's callbacks (boundStatements) put back the context they
// replaced, which is the request's, so the after callback would end and
// rename the request's span and leave the statement's open.
type spanOf struct{ *gorm.Statement }

// traceSQL makes each statement GORM runs on db a span of the trace in its
// context (statementSpan). It is a few GORM callbacks rather than
// gorm.io/plugin/opentelemetry, which links the ClickHouse and MySQL
// drivers into the binary.
func traceSQL(db *gorm.DB) error {
	before := func(tx *gorm.DB) {
		ctx, span := statementSpan(tx.Statement.Context)
		if span != nil {
			tx.Statement.Context = ctx
			tx.Statement.Settings.Store(spanOf{tx.Statement}, span)
		}
	}
	after := func(tx *gorm.DB) {
		if span, ok := tx.Statement.Settings.Load(spanOf{tx.Statement}); ok {
			endStatement(span.(trace.Span), tx.Statement.SQL.String(), tx.Statement.Table, tx.Error)
		}
	}
	cb := db.Callback()
	type register = func(string, func(*gorm.DB)) error
	for _, hooks := range [][2]register{
		{cb.Create().Before("gorm:create").Register, cb.Create().After("gorm:create").Register},
		{cb.Query().Before("gorm:query").Register, cb.Query().After("gorm:query").Register},
		{cb.Update().Before("gorm:update").Register, cb.Update().After("gorm:update").Register},
		{cb.Delete().Before("gorm:delete").Register, cb.Delete().After("gorm:delete").Register},
		{cb.Row().Before("gorm:row").Register, cb.Row().After("gorm:row").Register},
		{cb.Raw().Before("gorm:raw").Register, cb.Raw().After("gorm:raw").Register},
	} {
		// GORM names a callback once per processor, so one name serves all.
		if err := hooks[0]("otel:before", before); err != nil {
			return err
		}
		if err := hooks[1]("otel:after", after); err != nil {
			return err
		}
	}
	return nil
}
