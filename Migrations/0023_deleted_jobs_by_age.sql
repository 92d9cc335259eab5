-- DurableQueue schema, version 23: the lines of deleted jobs go after their state's retention.
--
-- A line of `deleted_jobs` (version 21) is what is left of a job deleted by hand; it now goes as a
-- finished job of its state would (the engine's `retention`: succeeded jobs after 7 days by
-- default), counted from its deletion, so that bulk deletes do not grow the file without end. This
-- index lets each pruning pass find the old lines of a state without reading the others. Every row
-- is kept.
CREATE INDEX idx_deleted_jobs_by_age ON deleted_jobs (state, deleted_at);
