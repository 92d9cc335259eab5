-- 0001_initial: named queues, jobs, their tags, the event history, and views for the sqlite3 shell.
--
-- Conventions
--   * Every time is INTEGER milliseconds since 1970-01-01 UTC; the views show them as ISO-8601 (UTC).
--   * States and modes are TEXT with the exact spelling of the Swift raw values.
--   * Inputs, outputs and errors are JSON TEXT, so `sqlite3` shows them and json_extract() reads them.
--   * Every state change of a job appends one row to job_events in the same transaction.

-- Marks the file as a DurableQueue database ("DQue"); `file` and DurableQueue itself check it.
PRAGMA application_id = 1146189157;

-- A named queue and its limits. A row is created with these defaults the first time a job is
-- enqueued on a queue nobody configured.
CREATE TABLE queues (
    name                   TEXT    NOT NULL PRIMARY KEY CHECK (length(name) > 0),
    -- Order within one priority: 'fifo' (oldest first) or 'lifo' (newest first).
    mode                   TEXT    NOT NULL DEFAULT 'fifo' CHECK (mode IN ('fifo', 'lifo')),
    -- Jobs of this queue running at once, over every process on the file; 0 means unlimited.
    concurrency_limit      INTEGER NOT NULL DEFAULT 0 CHECK (concurrency_limit >= 0),
    -- 1: running jobs finish, nothing new starts.
    suspended              INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
    -- Throttle: the least time between two starts (0: none), measured from the previous job's
    -- 'start' or 'end', and which waiting jobs a changed interval applies to.
    throttle_interval_ms   INTEGER NOT NULL DEFAULT 0 CHECK (throttle_interval_ms >= 0),
    throttle_measured_from TEXT    NOT NULL DEFAULT 'start' CHECK (throttle_measured_from IN ('start', 'end')),
    throttle_mutability    TEXT    NOT NULL DEFAULT 'all' CHECK (throttle_mutability IN ('all', 'defaultOnly', 'none')),
    -- Rate limit: at most rate_limit_count starts per rate_limit_window_ms (0: none).
    rate_limit_count       INTEGER NOT NULL DEFAULT 0 CHECK (rate_limit_count >= 0),
    rate_limit_window_ms   INTEGER NOT NULL DEFAULT 0 CHECK (rate_limit_window_ms >= 0),
    -- The earliest time the next job of this queue may start (throttle and rate limit).
    next_start_at          INTEGER NOT NULL DEFAULT 0,
    created_at             INTEGER NOT NULL,
    updated_at             INTEGER NOT NULL
) STRICT;

-- One job: what to run (kind + input), where and in which order, its attempts, lease and outcome.
CREATE TABLE jobs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, even after pruning
    queue            TEXT    NOT NULL REFERENCES queues (name),
    kind             TEXT    NOT NULL CHECK (length(kind) > 0),
    state            TEXT    NOT NULL CHECK (state IN ('scheduled', 'pending', 'blocked', 'running',
                                                       'succeeded', 'failed', 'cancelled')),
    -- Higher runs first: background -8, low -4, normal 0, high 4 (any integer is allowed).
    priority         INTEGER NOT NULL DEFAULT 0,
    -- Order within a priority, ascending: the job's id on a FIFO queue, minus its id on a LIFO queue.
    order_key        INTEGER NOT NULL,
    -- When the job is due. A job not yet due is 'scheduled' and becomes 'pending' when due.
    run_at           INTEGER NOT NULL,
    -- Attempts started so far (an attempt counts when it is claimed) and the limit (NULL: unlimited).
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts     INTEGER CHECK (max_attempts IS NULL OR max_attempts > 0),
    retry_policy     TEXT,     -- JSON, read by the engine; NULL: the engine's default
    timeout_ms       INTEGER CHECK (timeout_ms IS NULL OR timeout_ms > 0),
    -- While the job is active, no other active job has the same key (see idx_jobs_unique_key).
    unique_key       TEXT,
    -- Durable cancel request: once 1, the job never starts again.
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    -- Which worker runs the job and until when its lease holds without a heartbeat.
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    input            TEXT    NOT NULL,  -- JSON
    output           TEXT,              -- JSON, once succeeded
    error            TEXT,              -- JSON {type, message, retryable} of the last failed attempt
    progress         REAL CHECK (progress IS NULL OR (progress >= 0 AND progress <= 1)),
    checkpoint       BLOB,              -- opaque bytes a handler saves to resume
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    started_at       INTEGER,           -- start of the latest attempt
    finished_at      INTEGER            -- set when the job reaches a terminal state
) STRICT;

-- The next job of a queue: one index walk, FIFO and LIFO alike (order_key carries the direction).
CREATE INDEX idx_jobs_next_pending ON jobs (queue, priority DESC, order_key) WHERE state = 'pending';
-- Jobs to promote to 'pending' when due, and the time of the next one.
CREATE INDEX idx_jobs_next_scheduled ON jobs (run_at) WHERE state = 'scheduled';
-- Running jobs: per-queue concurrency counts and expired-lease recovery.
CREATE INDEX idx_jobs_running ON jobs (queue) WHERE state = 'running';
-- At most one active job per unique key. A job whose cancel was requested no longer holds its key.
CREATE UNIQUE INDEX idx_jobs_unique_key ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND cancel_requested = 0
      AND state IN ('scheduled', 'pending', 'blocked', 'running');
-- Finished jobs by age, for retention pruning.
CREATE INDEX idx_jobs_finished ON jobs (state, finished_at)
    WHERE state IN ('succeeded', 'failed', 'cancelled');

-- Tags: any number per job, looked up by tag.
CREATE TABLE job_tags (
    tag    TEXT    NOT NULL CHECK (length(tag) > 0),
    job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    PRIMARY KEY (tag, job_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX idx_job_tags_job ON job_tags (job_id);

-- The history: one row per state change, appended in the transaction that made it.
CREATE TABLE job_events (
    id         INTEGER PRIMARY KEY,
    job_id     INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    at         INTEGER NOT NULL,
    from_state TEXT,              -- NULL for the event that created the job
    to_state   TEXT    NOT NULL,
    attempt    INTEGER NOT NULL,  -- the job's attempt count after the change
    reason     TEXT,              -- why, in words: 'enqueued', 'claimed', 'lease expired', an error …
    worker     TEXT               -- the lease owner involved, if any
) STRICT;
CREATE INDEX idx_job_events_job ON job_events (job_id);

-- Per queue: its settings and how many of its jobs are in each state.
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
       CASE WHEN q.next_start_at > 0
            THEN strftime('%Y-%m-%dT%H:%M:%fZ', q.next_start_at / 1000.0, 'unixepoch') END AS next_start
FROM queues AS q
LEFT JOIN jobs AS j ON j.queue = q.name
GROUP BY q.name;

-- Jobs with readable times, priorities, tags and error messages.
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

-- Every state change of every job, oldest first per job, with readable times.
CREATE VIEW job_history AS
SELECT e.job_id,
       j.queue,
       j.kind,
       strftime('%Y-%m-%dT%H:%M:%fZ', e.at / 1000.0, 'unixepoch') AS at,
       e.from_state,
       e.to_state,
       e.attempt,
       e.reason,
       e.worker
FROM job_events AS e
JOIN jobs AS j ON j.id = e.job_id
ORDER BY e.job_id, e.id;
