-- The W3C traceparent of the request (or activity) that recorded a
-- workflow start, '' when it was not traced. The relay starts the row
-- later, in another process; it resumes the trace from here, so one trace
-- runs from the request through the start to the workflow and its SQL.
ALTER TABLE workflow_starts ADD COLUMN trace_parent text NOT NULL DEFAULT '';
