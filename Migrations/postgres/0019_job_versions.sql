-- DurableQueue PostgreSQL schema, version 19: a version per job, and the state 'parked', as the
-- SQLite file's migration 0026 has them.
--
-- A job carries the version of its type's input it was enqueued with (`Job.version`, 1 unless the
-- type says otherwise): a worker claims it only if it registered the kind at that version or at a
-- later one that reads it (`Job.inputMigrations`); any other waits 'pending', no attempt spent.
-- Every job already here, and every job `durablequeue_enqueue` inserts, is of version 1. The
-- column's default is a constant: adding it rewrites no row.
--
-- A job whose stored input does not decode under any migration its worker knows is 'parked': no
-- worker claims it, no attempt is spent, the decoding error is its error and its history's reason;
-- `retry` puts it back to 'pending'. Out of the running until retried, as a failed job is, it holds
-- no unique key. Every row is kept.
ALTER TABLE jobs ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
    CHECK (state IN ('scheduled', 'pending', 'blocked', 'running', 'succeeded', 'failed', 'cancelled', 'handed_off',
                     'waiting', 'parked'));
-- A schedule keeps the version of the input it was given: each tick's job carries it.
ALTER TABLE schedules ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);

-- Each job's version, beside its kind.
DROP VIEW job_list;
CREATE VIEW job_list AS
SELECT j.id,
       j.queue,
       j.kind,
       j.version,
       j.state,
       CASE j.priority WHEN -8 THEN 'background' WHEN -4 THEN 'low' WHEN 0 THEN 'normal'
                       WHEN 4 THEN 'high' ELSE j.priority::text END                     AS priority,
       j.attempts,
       j.max_attempts,
       j.cancel_requested,
       j.unique_key,
       (SELECT string_agg(t.tag, ',' ORDER BY t.tag) FROM job_tags AS t WHERE t.job_id = j.id) AS tags,
       j.progress,
       j.throttle_interval_ms,
       j.throttle_interval_source,
       iso_time(j.run_at)                                                            AS run_at,
       iso_time(j.created_at)                                                        AS created_at,
       iso_time(j.started_at)                                                        AS started_at,
       iso_time(j.finished_at)                                                       AS finished_at,
       j.lease_owner,
       iso_time(j.lease_expires_at)                                                  AS lease_expires_at,
       j.error ->> 'message'                                                         AS error_message,
       j.input,
       j.output
FROM jobs AS j;

-- Each queue's counts, now with its parked jobs.
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
       count(*) FILTER (WHERE j.state = 'parked')          AS parked,
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
