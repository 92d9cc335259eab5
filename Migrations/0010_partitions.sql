-- DurableQueue schema, version 10: partitioned concurrency ("one sync per customer at a time").
--
-- A job may carry a partition key; a queue with a partition limit runs at most that many jobs of one
-- key at once, over every process. The index counts a partition's running jobs without reading the
-- others. Every row is kept; existing jobs have no key and existing queues no limit (0).
ALTER TABLE jobs ADD COLUMN partition_key TEXT;
ALTER TABLE queues ADD COLUMN partition_limit INTEGER NOT NULL DEFAULT 0 CHECK (partition_limit >= 0);
CREATE INDEX idx_jobs_running_partition ON jobs (queue, partition_key) WHERE state = 'running' AND partition_key IS NOT NULL;
