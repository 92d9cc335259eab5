-- DurableQueue schema, version 12: one index of running jobs instead of two.
--
-- idx_jobs_running (queue) and idx_jobs_running_partition (queue, partition_key), both of running
-- jobs only, answered the same questions twice: how many jobs of a queue run (throttles, concurrency
-- limits) and how many of one partition of a queue run (partition limits). One index on
-- (queue, partition_key) of running jobs answers both. SQLite opens every index of a table for
-- each insert and checks each partial index's condition: an enqueue was a hundredth cheaper with
-- one fewer. No row changes.

DROP INDEX idx_jobs_running_partition;
DROP INDEX idx_jobs_running;
CREATE INDEX idx_jobs_running ON jobs (queue, partition_key) WHERE state = 'running';
