-- DurableQueue PostgreSQL schema, version 23: less server work per plain job, as the SQLite file's
-- migration 0029 did. Every row is kept; no column changes; the views are unchanged.
--
-- A claim and an ending are updates that change `state`, which partial indexes read: each writes a
-- new version of the row into every index whose condition the new version meets, and the history
-- rows they append are checked and indexed. What this version takes away from that path:
--
-- * job_events' foreign key. PostgreSQL checked it for every history row with a lookup of the job
--   that also locked its row (FOR KEY SHARE: a lock written into the job's row, and logged). A
--   statement trigger deletes a deleted job's history instead, only when jobs are deleted.
-- * job_events' two indexes (its id, and its job) become one primary key (job_id, id): a job's
--   history is read in its order through it; nothing looks a row up by its id alone.
-- * idx_jobs_lease_expiry. Expired leases are found among the running jobs (idx_jobs_running),
--   so that no index names lease_expires_at: a heartbeat, which writes only that column of the
--   job, is then a HOT update (no index touched) when the row's page has room.
-- * idx_jobs_running_partition and idx_jobs_running become one index, (queue, partition_key) of
--   the running jobs: a claim wrote a running job into both when it had a partition key.
--
-- And the jobs table leaves a fifth of each new page free (fillfactor 80), so that the new
-- versions a heartbeat writes fit beside the old one. Pages written before keep their layout.

ALTER TABLE job_events DROP CONSTRAINT job_events_job_id_fkey;
ALTER TABLE job_events DROP CONSTRAINT job_events_pkey;
DROP INDEX idx_job_events_job;
ALTER TABLE job_events ADD PRIMARY KEY (job_id, id);

-- The schema's own job_events, whatever the deleting session's search_path (as durablequeue_enqueue).
CREATE FUNCTION durablequeue_delete_history() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM job_events WHERE job_id IN (SELECT id FROM deleted_rows);
    RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_deleted_delete_history AFTER DELETE ON jobs
REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION durablequeue_delete_history();

DROP INDEX idx_jobs_lease_expiry;
DROP INDEX idx_jobs_running_partition;
DROP INDEX idx_jobs_running;
CREATE INDEX idx_jobs_running ON jobs (queue, partition_key) WHERE state = 'running';

ALTER TABLE jobs SET (fillfactor = 80);
