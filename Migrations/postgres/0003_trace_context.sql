-- DurableQueue PostgreSQL schema, version 3: the enqueuer's trace context, as the SQLite file's
-- migration 0007 has it. NULL when nothing traced the enqueue. Every row is kept.

-- The tracer's injected fields (such as W3C `traceparent`) as a JSON object, in text.
ALTER TABLE jobs ADD COLUMN trace_context text;
