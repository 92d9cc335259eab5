-- DurableQueue PostgreSQL schema, version 11: signals, and jobs waiting for one, as the SQLite file's
-- migration 0017 has them. A job whose handler waits for a signal that has not come waits in the
-- state 'waiting' (no worker slot, no lease, its attempt not counted); waiting_for names the signal
-- and wait_deadline says when the wait times out (NULL: never; both kept after the wait). A signal
-- sent before the wait is kept in job_signals; whatever ends a wait is recorded as the job's step
-- `signal <name>`. A waiting job is active: the unique-key index counts it. Every row is kept.
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
    CHECK (state IN ('scheduled', 'pending', 'blocked', 'running', 'succeeded', 'failed', 'cancelled', 'handed_off',
                     'waiting'));
ALTER TABLE jobs ADD COLUMN waiting_for text;
ALTER TABLE jobs ADD COLUMN wait_deadline bigint;

DROP INDEX idx_jobs_unique_key;
CREATE UNIQUE INDEX idx_jobs_unique_key ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND cancel_requested = 0
      AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting');
-- The waiting jobs, by deadline: the timeouts to enforce.
CREATE INDEX idx_jobs_waiting ON jobs (wait_deadline) WHERE state = 'waiting';

-- Signals sent to jobs, one per job and name: kept until the job goes, whether a wait took it or not.
CREATE TABLE job_signals (
    job_id  bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    name    text   NOT NULL CHECK (length(name) > 0),
    payload jsonb  NOT NULL,
    sent_at bigint NOT NULL,
    PRIMARY KEY (job_id, name)
);

-- Jobs waiting now, with readable times: what each waits for, and until when.
CREATE VIEW job_waits AS
SELECT id,
       queue,
       kind,
       attempts                AS attempt,
       waiting_for,
       iso_time(updated_at)    AS waiting_since,
       iso_time(wait_deadline) AS deadline
FROM jobs
WHERE state = 'waiting';

-- Signals with readable times, and whether the job took each (a step records what its wait got).
CREATE VIEW job_signal_list AS
SELECT g.job_id,
       j.kind,
       g.name,
       g.payload,
       iso_time(g.sent_at) AS sent_at,
       EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = g.job_id AND s.name = 'signal ' || g.name
                                               AND NOT s.output ? 'timedOut') AS taken
FROM job_signals AS g
JOIN jobs AS j ON j.id = g.job_id
ORDER BY g.job_id, g.sent_at, g.name;

-- Each queue's counts, now with its waiting jobs.
DROP VIEW queue_status;
CREATE VIEW queue_status AS
SELECT q.name                                              AS queue,
       q.mode                                              AS mode,
       q.concurrency_limit                                 AS concurrency_limit,
       q.suspended                                         AS suspended,
       count(*) FILTER (WHERE j.state = 'scheduled')       AS scheduled,
       count(*) FILTER (WHERE j.state = 'pending')         AS pending,
       count(*) FILTER (WHERE j.state = 'blocked')         AS blocked,
       count(*) FILTER (WHERE j.state = 'running')         AS running,
       count(*) FILTER (WHERE j.state = 'succeeded')       AS succeeded,
       count(*) FILTER (WHERE j.state = 'failed')          AS failed,
       count(*) FILTER (WHERE j.state = 'cancelled')       AS cancelled,
       count(*) FILTER (WHERE j.state = 'handed_off')      AS handed_off,
       count(*) FILTER (WHERE j.state = 'waiting')         AS waiting,
       q.throttle_interval_ms                              AS throttle_interval_ms,
       q.throttle_measured_from                            AS throttle_measured_from,
       q.throttle_mutability                               AS throttle_mutability,
       q.rate_limit_count                                  AS rate_limit_count,
       q.rate_limit_window_ms                              AS rate_limit_window_ms,
       (SELECT count(*) FROM queue_starts AS s
        WHERE s.queue = q.name AND s.started_at > now_ms() - q.rate_limit_window_ms) AS starts_in_window,
       CASE WHEN q.next_start_at > 0 THEN iso_time(q.next_start_at) END             AS next_start
FROM queues AS q
LEFT JOIN jobs AS j ON j.queue = q.name
GROUP BY q.name;
