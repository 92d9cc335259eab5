-- DurableQueue schema, version 17: signals, and jobs waiting for one.
--
-- A handler's `context.waitForSignal(name)` returns the payload another process sends with
-- `queue.signal(job, name, payload)`. Until the signal comes, the job waits in a state of its own,
-- 'waiting': no worker slot, no lease, its attempt not counted; waiting_for names the signal and
-- wait_deadline says when the wait times out (NULL: never). A signal sent before the wait is kept in
-- job_signals for it. Whatever ends the wait — the signal, or its timeout — is recorded as the job's
-- step `signal <name>` (see 0016), so every later attempt gets the same answer.
--
-- SQLite cannot change a CHECK constraint in place, so the jobs table is rebuilt as version 15 did:
-- a new table with every column, every row copied with its id, the old table dropped, the new one
-- renamed, the indexes and the trigger created again. A waiting job is active: the unique-key index
-- counts it. Foreign keys are off while a migration runs (see Migrator); legacy_alter_table keeps the
-- views' references to `jobs` as they are.

PRAGMA legacy_alter_table = ON;

CREATE TABLE jobs_rebuilt (
    id               INTEGER PRIMARY KEY,  -- never reused: see job_id_floor
    queue            TEXT    NOT NULL REFERENCES queues (name),
    kind             TEXT    NOT NULL CHECK (length(kind) > 0),
    state            TEXT    NOT NULL CHECK (state = 'scheduled' OR state = 'pending' OR state = 'blocked'
                                             OR state = 'running' OR state = 'succeeded' OR state = 'failed'
                                             OR state = 'cancelled' OR state = 'handed_off' OR state = 'waiting'),
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
    wait_deadline       INTEGER
) STRICT;

INSERT INTO jobs_rebuilt (id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
                          timeout_ms, unique_key, cancel_requested, lease_owner, lease_expires_at, input, output,
                          error, progress, checkpoint, created_at, updated_at, started_at, finished_at,
                          throttle_interval_ms, throttle_interval_source, group_id, group_position, step_name,
                          takes_previous_output, progressed_attempts, checkpoint_attempt, trace_context, partition_key,
                          created_state, event_count, handed_off_to, handoff_reference, handoff_deadline)
SELECT id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
       timeout_ms, unique_key, cancel_requested, lease_owner, lease_expires_at, input, output,
       error, progress, checkpoint, created_at, updated_at, started_at, finished_at,
       throttle_interval_ms, throttle_interval_source, group_id, group_position, step_name,
       takes_previous_output, progressed_attempts, checkpoint_attempt, trace_context, partition_key,
       created_state, event_count, handed_off_to, handoff_reference, handoff_deadline
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_rebuilt RENAME TO jobs;

-- Every index of version 15, as it was; the unique key's counts a waiting job as active.
CREATE INDEX idx_jobs_next_pending ON jobs (queue, priority DESC, order_key) WHERE state = 'pending';
CREATE INDEX idx_jobs_next_scheduled ON jobs (run_at) WHERE state = 'scheduled';
CREATE INDEX idx_jobs_running ON jobs (queue, partition_key) WHERE state = 'running';
CREATE UNIQUE INDEX idx_jobs_unique_key ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND cancel_requested = 0
      AND (state = 'scheduled' OR state = 'pending' OR state = 'blocked' OR state = 'running' OR state = 'handed_off'
           OR state = 'waiting');
CREATE INDEX idx_jobs_finished ON jobs (state, finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX idx_jobs_unique_key_created ON jobs (unique_key, created_at) WHERE unique_key IS NOT NULL;
CREATE INDEX idx_jobs_group_state ON jobs (group_id, state, group_position) WHERE group_id IS NOT NULL;
-- The jobs handed off, by deadline: the deadlines to enforce, and (read whole: they are the
-- transfers in flight) a carrier's hand-offs. One index only: every state change of a job maintains
-- each partial index on `state`, and a second one cost every claim and ending a cursor more.
CREATE INDEX idx_jobs_handed_off ON jobs (handoff_deadline) WHERE state = 'handed_off';
-- The waiting jobs, by deadline: the timeouts to enforce (the same reasoning: one index).
CREATE INDEX idx_jobs_waiting ON jobs (wait_deadline) WHERE state = 'waiting';

-- A deleted job's id stays used: raise the floor the next id is counted from.
CREATE TRIGGER jobs_deleted_raise_id_floor AFTER DELETE ON jobs
WHEN old.id > (SELECT id FROM job_id_floor)
BEGIN
    UPDATE job_id_floor SET id = old.id;
END;

PRAGMA legacy_alter_table = OFF;

-- Signals sent to jobs, one per job and name: kept until the job goes, whether a wait took it or not.
CREATE TABLE job_signals (
    job_id  INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    name    TEXT    NOT NULL CHECK (length(name) > 0),
    payload TEXT    NOT NULL,  -- JSON
    sent_at INTEGER NOT NULL,
    PRIMARY KEY (job_id, name)
) STRICT, WITHOUT ROWID;

-- Jobs waiting now, with readable times: what each waits for, and until when.
CREATE VIEW job_waits AS
SELECT id,
       queue,
       kind,
       attempts                                                               AS attempt,
       waiting_for,
       strftime('%Y-%m-%dT%H:%M:%fZ', updated_at / 1000.0, 'unixepoch')        AS waiting_since,
       strftime('%Y-%m-%dT%H:%M:%fZ', wait_deadline / 1000.0, 'unixepoch')     AS deadline
FROM jobs
WHERE state = 'waiting';

-- Signals with readable times, and whether the job took each (a step records what its wait got).
CREATE VIEW job_signal_list AS
SELECT g.job_id,
       j.kind,
       g.name,
       g.payload,
       strftime('%Y-%m-%dT%H:%M:%fZ', g.sent_at / 1000.0, 'unixepoch')           AS sent_at,
       EXISTS (SELECT 1 FROM job_steps AS s WHERE s.job_id = g.job_id AND s.name = 'signal ' || g.name
                                               AND json_extract(s.output, '$.timedOut') IS NULL) AS taken
FROM job_signals AS g
JOIN jobs AS j ON j.id = g.job_id
ORDER BY g.job_id, g.sent_at, g.name;

-- Each queue's counts, now with its waiting jobs.
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
