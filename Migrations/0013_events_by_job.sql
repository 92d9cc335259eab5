-- DurableQueue schema, version 13: a job's history rows are stored together, numbered per job.
--
-- Up to version 12 every event row had a rowid of its own and a place in idx_job_events_job (by
-- job_id): each state change wrote two b-trees, and a commit one page more of the file. From this
-- version job_events is a WITHOUT ROWID table keyed by (job_id, seq), where seq numbers the job's
-- event rows 1, 2, 3 … in the order they were written. A job's rows sit together, and reading one
-- job's history is a walk of the key, as the index made it before.
--
-- jobs.event_count holds how many event rows the job has: the transaction that changes a job adds
-- one to it in the same UPDATE and writes the event row with that number, so no lookup finds the
-- next number. Existing rows are copied with seq counted by their old id within each job, and each
-- job's event_count set to its number of rows. Jobs created from version 11 on have their creation
-- on their own row (seq 0 in job_history); earlier jobs keep their creation row as seq 1.
--
-- Foreign keys are off while a migration runs (see Migrator). job_history reads job_events, so it is
-- dropped before the rebuild and created again after, ordered by seq.

DROP VIEW job_history;

CREATE TABLE job_events_rebuilt (
    job_id     INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,  -- the job's first event row is 1, the next 2 …
    at         INTEGER NOT NULL,
    from_state TEXT,              -- NULL for the event that created the job (before version 11)
    to_state   TEXT    NOT NULL,
    attempt    INTEGER NOT NULL,  -- the job's attempt count after the change
    reason     TEXT,              -- why, in words: 'claimed', 'lease expired', an error …
    worker     TEXT,              -- the lease owner involved, if any
    PRIMARY KEY (job_id, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO job_events_rebuilt (job_id, seq, at, from_state, to_state, attempt, reason, worker)
SELECT job_id, row_number() OVER (PARTITION BY job_id ORDER BY id), at, from_state, to_state, attempt, reason, worker
FROM job_events;

DROP TABLE job_events;
ALTER TABLE job_events_rebuilt RENAME TO job_events;

ALTER TABLE jobs ADD COLUMN event_count INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET event_count = (SELECT max(seq) FROM job_events WHERE job_id = jobs.id)
WHERE id IN (SELECT job_id FROM job_events);

-- Every state change of every job, oldest first per job, with readable times: the creation from
-- the job's row (or, for jobs created before version 11, from its first job_events row), then the
-- events.
CREATE VIEW job_history AS
SELECT h.job_id,
       j.queue,
       j.kind,
       strftime('%Y-%m-%dT%H:%M:%fZ', h.at / 1000.0, 'unixepoch') AS at,
       h.from_state,
       h.to_state,
       h.attempt,
       h.reason,
       h.worker
FROM (SELECT id AS job_id, 0 AS seq, created_at AS at, NULL AS from_state, created_state AS to_state,
             0 AS attempt, 'enqueued' AS reason, NULL AS worker
      FROM jobs WHERE created_state IS NOT NULL
      UNION ALL
      SELECT job_id, seq, at, from_state, to_state, attempt, reason, worker FROM job_events) AS h
JOIN jobs AS j ON j.id = h.job_id
ORDER BY h.job_id, h.seq;
