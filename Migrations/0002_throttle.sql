-- DurableQueue schema, version 2: throttled queues and rate limits.

-- The throttle interval that follows each job: kept between its start (or end, per the queue's
-- throttle_measured_from) and the next start on its queue. Set at enqueue from the job's own interval
-- ('job') or the queue's ('queue'); a changed queue interval updates waiting jobs per the queue's
-- throttle_mutability: 'all' every waiting job, 'defaultOnly' those from 'queue', 'none' no job.
ALTER TABLE jobs ADD COLUMN throttle_interval_ms INTEGER NOT NULL DEFAULT 0 CHECK (throttle_interval_ms >= 0);
ALTER TABLE jobs ADD COLUMN throttle_interval_source TEXT NOT NULL DEFAULT 'queue'
    CHECK (throttle_interval_source IN ('queue', 'job'));

UPDATE jobs SET throttle_interval_ms = (SELECT q.throttle_interval_ms FROM queues AS q WHERE q.name = jobs.queue)
WHERE state IN ('scheduled', 'pending', 'blocked', 'running');

-- Recent job starts of queues with a rate limit (at most rate_limit_count starts per
-- rate_limit_window_ms): rows older than the window are deleted as new starts come.
CREATE TABLE queue_starts (
    queue      TEXT    NOT NULL REFERENCES queues (name),
    started_at INTEGER NOT NULL
) STRICT;
CREATE INDEX idx_queue_starts ON queue_starts (queue, started_at);

-- Queues with their settings, job counts, and throttle / rate-limit state.
DROP VIEW queue_status;
CREATE VIEW queue_status AS
SELECT q.name                                        AS queue,
       q.mode                                        AS mode,
       q.concurrency_limit                           AS concurrency_limit,
       q.suspended                                   AS suspended,
       coalesce(sum(j.state = 'scheduled'), 0)       AS scheduled,
       coalesce(sum(j.state = 'pending'), 0)         AS pending,
       coalesce(sum(j.state = 'blocked'), 0)         AS blocked,
       coalesce(sum(j.state = 'running'), 0)         AS running,
       coalesce(sum(j.state = 'succeeded'), 0)       AS succeeded,
       coalesce(sum(j.state = 'failed'), 0)          AS failed,
       coalesce(sum(j.state = 'cancelled'), 0)       AS cancelled,
       q.throttle_interval_ms                        AS throttle_interval_ms,
       q.throttle_measured_from                      AS throttle_measured_from,
       q.throttle_mutability                         AS throttle_mutability,
       q.rate_limit_count                            AS rate_limit_count,
       q.rate_limit_window_ms                        AS rate_limit_window_ms,
       (SELECT count(*) FROM queue_starts AS s
        WHERE s.queue = q.name
          AND s.started_at > CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) - q.rate_limit_window_ms)
                                                     AS starts_in_window,
       CASE WHEN q.next_start_at > 0
            THEN strftime('%Y-%m-%dT%H:%M:%fZ', q.next_start_at / 1000.0, 'unixepoch') END AS next_start
FROM queues AS q
LEFT JOIN jobs AS j ON j.queue = q.name
GROUP BY q.name;

-- Jobs with readable times, priorities, tags, throttle intervals and error messages.
DROP VIEW job_list;
CREATE VIEW job_list AS
SELECT j.id,
       j.queue,
       j.kind,
       j.state,
       CASE j.priority WHEN -8 THEN 'background' WHEN -4 THEN 'low' WHEN 0 THEN 'normal'
                       WHEN 4 THEN 'high' ELSE CAST(j.priority AS TEXT) END                AS priority,
       j.attempts,
       j.max_attempts,
       j.cancel_requested,
       j.unique_key,
       (SELECT group_concat(t.tag, ',') FROM job_tags AS t WHERE t.job_id = j.id)            AS tags,
       j.progress,
       j.throttle_interval_ms,
       j.throttle_interval_source,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.run_at / 1000.0, 'unixepoch')                       AS run_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.created_at / 1000.0, 'unixepoch')                   AS created_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.started_at / 1000.0, 'unixepoch')                   AS started_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.finished_at / 1000.0, 'unixepoch')                  AS finished_at,
       j.lease_owner,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.lease_expires_at / 1000.0, 'unixepoch')             AS lease_expires_at,
       json_extract(j.error, '$.message')                                                   AS error_message,
       j.input,
       j.output
FROM jobs AS j;
