-- DurableQueue PostgreSQL schema, version 18: the lines of deleted jobs go after their state's
-- retention, as the SQLite file's migration 0023 has them: a line of `deleted_jobs` goes as a
-- finished job of its state would (the engine's `retention`), counted from its deletion. This index
-- lets each pruning pass find the old lines of a state without reading the others. Every row is kept.
CREATE INDEX idx_deleted_jobs_by_age ON deleted_jobs (state, deleted_at);
