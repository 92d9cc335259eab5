-- DurableQueue schema, version 24: the history in commit order, across jobs.
--
-- job_events is keyed (job_id, seq): it orders one job's rows, not two jobs'. From this version
-- every history row and every job's creation carries a number in the file's commit order:
-- job_events.tx, and jobs.created_tx for the creation (which job_history shows from the job's row).
-- Transactions that change jobs are counted: each takes the next count, and its rows get twice it.
-- A transaction that only creates jobs takes none: its rows get twice the last count plus one,
-- after every change counted so far, before the next. Writers hold the file's lock one at a time,
-- so `ORDER BY tx, job_id, seq` reads what happened in the order it was committed, whichever jobs
-- it touched (transactions that only create jobs, one after another, share a number; their jobs'
-- ids follow their commits). commit_counter holds the end of the last block of counts a writer
-- reserved (no count passes it): a writer goes on from there after another's commits, and writes
-- it only when it starts a block, so the counts have gaps.
--
-- Rows written before this version have no number (NULL); every row is kept.
ALTER TABLE job_events ADD COLUMN tx INTEGER;
ALTER TABLE jobs ADD COLUMN created_tx INTEGER;

-- The end of the last block of commit counts reserved: one row.
CREATE TABLE commit_counter (
    last_tx INTEGER NOT NULL
) STRICT;
INSERT INTO commit_counter (last_tx) VALUES (0);

-- job_history as in version 13, with each row's number among the job's rows (seq: 0 for the
-- creation) and its commit order (tx) last.
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
       h.seq,
       h.tx
FROM (SELECT id AS job_id, 0 AS seq, created_at AS at, NULL AS from_state, created_state AS to_state,
             0 AS attempt, 'enqueued' AS reason, NULL AS worker, created_tx AS tx
      FROM jobs WHERE created_state IS NOT NULL
      UNION ALL
      SELECT job_id, seq, at, from_state, to_state, attempt, reason, worker, tx FROM job_events) AS h
JOIN jobs AS j ON j.id = h.job_id
ORDER BY h.job_id, h.seq;
