-- DurableQueue PostgreSQL schema, version 9: attempts handed off to a carrier outside the process, as
-- the SQLite file's migration 0015 has it. A job whose attempt was handed off waits in the state
-- 'handed_off' (no worker slot, no lease, its attempt number kept) until a report for that attempt
-- ends it; handed_off_to, handoff_reference and handoff_deadline say to which carrier, under which
-- name and until when (NULL until a first hand-off; kept after it). A handed-off job is active: the unique-key index counts it. Every row is kept.
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
    CHECK (state IN ('scheduled', 'pending', 'blocked', 'running', 'succeeded', 'failed', 'cancelled', 'handed_off'));
ALTER TABLE jobs ADD COLUMN handed_off_to text;
ALTER TABLE jobs ADD COLUMN handoff_reference text;
ALTER TABLE jobs ADD COLUMN handoff_deadline bigint;

DROP INDEX idx_jobs_unique_key;
CREATE UNIQUE INDEX idx_jobs_unique_key ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND cancel_requested = 0
      AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off');
-- The jobs handed off, by deadline: the deadlines to enforce, and (read whole: they are the
-- transfers in flight) a carrier's hand-offs. One index only: every state change of a job maintains
-- each partial index on `state`, and a second one cost every claim and ending a cursor more.
CREATE INDEX idx_jobs_handed_off ON jobs (handoff_deadline) WHERE state = 'handed_off';

-- Jobs handed off now, with readable times: which carrier holds each, and until when.
CREATE VIEW job_handoffs AS
SELECT id,
       queue,
       kind,
       attempts                   AS attempt,
       handed_off_to,
       handoff_reference,
       iso_time(updated_at)       AS handed_off_at,
       iso_time(handoff_deadline) AS deadline
FROM jobs
WHERE state = 'handed_off';

-- Each queue's counts, now with its handed-off jobs.
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
