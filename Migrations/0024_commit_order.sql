-- DurableQueue schema, version 24: the history in commit order, across jobs.
--
-- job_events is keyed (job_id, seq): it orders one job's rows, not two jobs'. From this version
-- every write transaction that creates a job or appends a history row takes the next number of the
-- file's commit counter, and stamps it on those rows: job_events.tx, and jobs.created_tx for the
-- job's creation (which job_history shows from the job's row). Writers take the file's write lock
-- one at a time, so the numbers follow the commits: `ORDER BY tx` reads what happened in the order
-- it was committed, whichever jobs it touched. Rows of one transaction share its number, and its
-- time (`at`), read once the transaction held the lock.
--
-- Rows written before this version have no number (NULL); every row is kept.
ALTER TABLE job_events ADD COLUMN tx INTEGER;
ALTER TABLE jobs ADD COLUMN created_tx INTEGER;

-- The last commit number given out: one row.
CREATE TABLE commit_counter (
    last_tx INTEGER NOT NULL
) STRICT;
INSERT INTO commit_counter (last_tx) VALUES (0);

-- job_history as in version 13, with each row's commit number last.
DROP VIEW job_history;
CREATE VIEW job_history AS
SELECT h.job_id,
       j.queue,
       j.kind,
       strftime('%Y-%m-%dT%H:%M:%fZ', h.at / 1000.0, 'unixepoch') AS at,
       h.from_state,
       h.to_state,
       h.attempt,
       h.reason,
       h.worker,
       h.tx
FROM (SELECT id AS job_id, 0 AS seq, created_at AS at, NULL AS from_state, created_state AS to_state,
             0 AS attempt, 'enqueued' AS reason, NULL AS worker, created_tx AS tx
      FROM jobs WHERE created_state IS NOT NULL
      UNION ALL
      SELECT job_id, seq, at, from_state, to_state, attempt, reason, worker, tx FROM job_events) AS h
JOIN jobs AS j ON j.id = h.job_id
ORDER BY h.job_id, h.seq;
