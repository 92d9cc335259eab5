-- DurableQueue schema, version 8: unique keys over a window of time.
--
-- A job enqueued with a unique window (`EnqueueOptions.uniqueWindow`) is not enqueued when any job
-- with its key was created within that window, finished or not. This index finds the newest such
-- job without reading the others. Every row is kept.
CREATE INDEX idx_jobs_unique_key_created ON jobs (unique_key, created_at) WHERE unique_key IS NOT NULL;
