-- DurableQueue PostgreSQL schema, version 6: partitioned concurrency, as the SQLite file's
-- migration 0010 has it. Every row is kept; existing jobs have no key, existing queues no limit.
ALTER TABLE jobs ADD COLUMN partition_key text;
ALTER TABLE queues ADD COLUMN partition_limit integer NOT NULL DEFAULT 0 CHECK (partition_limit >= 0);
CREATE INDEX idx_jobs_running_partition ON jobs (queue, partition_key) WHERE state = 'running' AND partition_key IS NOT NULL;
