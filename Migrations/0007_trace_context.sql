-- DurableQueue schema, version 7: the enqueuer's trace context.
--
-- When the application traces (swift-distributed-tracing), a job keeps the context of the code that
-- enqueued it, so that each attempt's span continues that trace, in whatever process and after any
-- restart. NULL when nothing traced the enqueue. Every row is kept; existing jobs have none.

-- The tracer's injected fields (such as W3C `traceparent`) as a JSON object.
ALTER TABLE jobs ADD COLUMN trace_context TEXT;
