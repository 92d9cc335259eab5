-- DurableQueue PostgreSQL schema, version 4: unique keys over a window of time, as the SQLite
-- file's migration 0008 has it: finds the newest job created with a key, finished or not.
CREATE INDEX idx_jobs_unique_key_created ON jobs (unique_key, created_at) WHERE unique_key IS NOT NULL;
