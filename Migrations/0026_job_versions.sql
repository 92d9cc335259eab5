-- DurableQueue schema, version 26: a version per job, and the state 'parked'.
--
-- A job carries the version of its type's input it was enqueued with (`Job.version`, 1 unless the
-- type says otherwise): a worker claims it only if it registered the kind at that version or at a
-- later one that reads it (`Job.inputMigrations`); any other waits 'pending', no attempt spent,
-- for a worker that runs it. Every job already here was enqueued by version 1. The library checks
-- the version (1 or more) as it checks every value; the store inserts jobs of version 1 without
-- naming the column (its default): binding it, and a CHECK, cost each insert of a plain job about
-- 400 and 60 instructions (callgrind, the SQL floor's batch).
--
-- A job whose stored input does not decode under any migration its worker knows is 'parked': no
-- worker claims it, no attempt is spent, the decoding error is its error and its history's reason;
-- `retry` puts it back to 'pending' once code that reads it runs. A parked job is unfinished but out
-- of the running until retried, as a failed one is: it holds no unique key (a retry checks that no
-- other job took it meanwhile), and queue_status counts it in a column of its own.
--
-- SQLite cannot change a CHECK constraint in place, so the jobs table is rebuilt as versions 15 and
-- 17 did: a new table with every column, every row copied with its id, the old table dropped, the
-- new one renamed, the indexes and the trigger created again. Foreign keys are off while a migration
-- runs (see Migrator); legacy_alter_table keeps the views' references to `jobs` as they are.

PRAGMA legacy_alter_table = ON;

CREATE TABLE jobs_rebuilt (
    id               INTEGER PRIMARY KEY,  -- never reused: see job_id_floor
    queue            TEXT    NOT NULL REFERENCES queues (name),
    kind             TEXT    NOT NULL CHECK (length(kind) > 0),
    -- The version of the job type's input the job was enqueued with (0026): a worker claims it only
    -- if it runs the kind at that version or reads it (see Job.version).
    version          INTEGER NOT NULL DEFAULT 1,
    state            TEXT    NOT NULL CHECK (state = 'scheduled' OR state = 'pending' OR state = 'blocked'
                                             OR state = 'running' OR state = 'succeeded' OR state = 'failed'
                                             OR state = 'cancelled' OR state = 'handed_off' OR state = 'waiting'
                                             OR state = 'parked'),
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
    finished_at      INTEGER,           -- set when the job reaches a terminal state
    -- The throttle interval kept after this job (see 0002_throttle) and where it came from.
    throttle_interval_ms     INTEGER NOT NULL DEFAULT 0 CHECK (throttle_interval_ms >= 0),
    throttle_interval_source TEXT    NOT NULL DEFAULT 'queue' CHECK (throttle_interval_source IN ('queue', 'job')),
    -- The job's place in a sequence or concurrent group (see 0003_groups_and_cache).
    group_id              INTEGER REFERENCES groups (id) ON DELETE SET NULL,
    group_position        INTEGER,
    step_name             TEXT,
    takes_previous_output INTEGER NOT NULL DEFAULT 0 CHECK (takes_previous_output IN (0, 1)),
    -- Attempts that saved a new checkpoint, and the attempt that saved the current one (0005).
    progressed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (progressed_attempts >= 0),
    checkpoint_attempt  INTEGER,
    -- The enqueuer's trace context, a JSON object (0007).
    trace_context       TEXT,
    -- The partition whose limit the job counts against (0010).
    partition_key       TEXT,
    -- The state the job was created in; job_history shows its creation from this row. NULL for jobs
    -- created before version 11, whose creation is a job_events row.
    created_state       TEXT CHECK (created_state IS NULL OR created_state = 'scheduled' OR created_state = 'pending'
                                    OR created_state = 'blocked'),
    -- How many job_events rows the job has (0013).
    event_count         INTEGER NOT NULL DEFAULT 0,
    -- The job's latest hand-off (0015): the carrier its attempt was handed to, what the carrier calls
    -- the transfer, and when the hand-off times out (NULL: never). NULL until a first hand-off; they
    -- keep their values after the job leaves 'handed_off', as a record of where its attempt went.
    handed_off_to       TEXT,
    handoff_reference   TEXT,
    handoff_deadline    INTEGER,
    -- What the job waits for (0017): the signal's name while it is 'waiting', and when the wait
    -- times out (NULL: never). Kept after the job leaves 'waiting', as a record of its last wait.
    waiting_for         TEXT,
    wait_deadline       INTEGER,
    -- Poison jobs (0020): attempts in a row whose worker stopped without progress, and the last one.
    lost_in_a_row       INTEGER NOT NULL DEFAULT 0 CHECK (lost_in_a_row >= 0),
    last_lost_attempt   INTEGER,
    -- The transaction that created the job (0024), for job_history's order.
    created_tx          INTEGER
) STRICT;

INSERT INTO jobs_rebuilt (id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts,
                          retry_policy, timeout_ms, unique_key, cancel_requested, lease_owner,
                          lease_expires_at, input, output, error, progress, checkpoint, created_at,
                          updated_at, started_at, finished_at, throttle_interval_ms,
                          throttle_interval_source, group_id, group_position, step_name,
                          takes_previous_output, progressed_attempts, checkpoint_attempt, trace_context,
                          partition_key, created_state, event_count, handed_off_to, handoff_reference,
                          handoff_deadline, waiting_for, wait_deadline, lost_in_a_row, last_lost_attempt,
                          created_tx)
SELECT id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy, timeout_ms,
       unique_key, cancel_requested, lease_owner, lease_expires_at, input, output, error, progress,
       checkpoint, created_at, updated_at, started_at, finished_at, throttle_interval_ms,
       throttle_interval_source, group_id, group_position, step_name, takes_previous_output,
       progressed_attempts, checkpoint_attempt, trace_context, partition_key, created_state, event_count,
       handed_off_to, handoff_reference, handoff_deadline, waiting_for, wait_deadline, lost_in_a_row,
       last_lost_attempt, created_tx
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_rebuilt RENAME TO jobs;

-- Every index of version 25, as it was.
CREATE INDEX idx_jobs_next_pending ON jobs (queue, priority DESC, order_key) WHERE state = 'pending';
CREATE INDEX idx_jobs_running ON jobs (queue, partition_key) WHERE state = 'running';
CREATE UNIQUE INDEX idx_jobs_unique_key ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND cancel_requested = 0
      AND (state = 'scheduled' OR state = 'pending' OR state = 'blocked' OR state = 'running' OR state = 'handed_off'
           OR state = 'waiting');
CREATE INDEX idx_jobs_finished ON jobs (state, finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX idx_jobs_unique_key_created ON jobs (unique_key, created_at) WHERE unique_key IS NOT NULL;
CREATE INDEX idx_jobs_group_state ON jobs (group_id, state, group_position) WHERE group_id IS NOT NULL;
CREATE INDEX idx_jobs_timed ON jobs (state, run_at, handoff_deadline, wait_deadline)
    WHERE state = 'scheduled' OR state = 'handed_off' OR state = 'waiting';

-- A deleted job's id stays used: raise the floor the next id is counted from.
CREATE TRIGGER jobs_deleted_raise_id_floor AFTER DELETE ON jobs
WHEN old.id > (SELECT id FROM job_id_floor)
BEGIN
    UPDATE job_id_floor SET id = old.id;
END;

PRAGMA legacy_alter_table = OFF;

-- Each job's version, beside its kind.
DROP VIEW job_list;
CREATE VIEW job_list AS
SELECT j.id,
       j.queue,
       j.kind,
       j.version,
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

-- Each queue's counts, now with its parked jobs.
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
       coalesce(sum(j.state = 'handed_off'), 0)      AS handed_off,
       coalesce(sum(j.state = 'waiting'), 0)         AS waiting,
       coalesce(sum(j.state = 'parked'), 0)          AS parked,
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

-- A schedule keeps the version of the input it was given: each tick's job carries it.
ALTER TABLE schedules ADD COLUMN version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1);
