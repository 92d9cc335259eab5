-- DurableQueue schema, version 4: the same tables and meanings, cheaper to write.
--
-- SQLite 3.40 evaluates `x IN ('a', 'b', 'c')` (three or more constants) by building a temporary
-- b-tree every time a statement runs. In the jobs table's CHECK on `state` and in the WHERE of two
-- partial indexes that happened on every insert of a job and every change of its state, and cost
-- more than the insert itself. This version states them with OR, which SQLite evaluates directly.
--
-- A CHECK constraint can only change by rebuilding the table: a new table with the same columns,
-- the rows copied (ids, and the AUTOINCREMENT counter, kept), the old one dropped, the new one
-- renamed. The migration runs with foreign keys off (see Migrator), so that dropping the old table
-- cascades to nothing; legacy_alter_table keeps the views' references to `jobs` as they are.

PRAGMA legacy_alter_table = ON;

CREATE TABLE jobs_rebuilt (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, even after pruning
    queue            TEXT    NOT NULL REFERENCES queues (name),
    kind             TEXT    NOT NULL CHECK (length(kind) > 0),
    state            TEXT    NOT NULL CHECK (state = 'scheduled' OR state = 'pending' OR state = 'blocked'
                                             OR state = 'running' OR state = 'succeeded' OR state = 'failed'
                                             OR state = 'cancelled'),
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
    takes_previous_output INTEGER NOT NULL DEFAULT 0 CHECK (takes_previous_output IN (0, 1))
) STRICT;

-- Carry the AUTOINCREMENT counter over: ids of pruned jobs stay unused.
INSERT INTO sqlite_sequence (name, seq) SELECT 'jobs_rebuilt', seq FROM sqlite_sequence WHERE name = 'jobs';

INSERT INTO jobs_rebuilt (id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
                          timeout_ms, unique_key, cancel_requested, lease_owner, lease_expires_at, input, output,
                          error, progress, checkpoint, created_at, updated_at, started_at, finished_at,
                          throttle_interval_ms, throttle_interval_source, group_id, group_position, step_name,
                          takes_previous_output)
SELECT id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
       timeout_ms, unique_key, cancel_requested, lease_owner, lease_expires_at, input, output,
       error, progress, checkpoint, created_at, updated_at, started_at, finished_at,
       throttle_interval_ms, throttle_interval_source, group_id, group_position, step_name,
       takes_previous_output
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_rebuilt RENAME TO jobs;

-- The indexes of versions 1 and 3, the two partial ones restated with OR.
CREATE INDEX idx_jobs_next_pending ON jobs (queue, priority DESC, order_key) WHERE state = 'pending';
CREATE INDEX idx_jobs_next_scheduled ON jobs (run_at) WHERE state = 'scheduled';
CREATE INDEX idx_jobs_running ON jobs (queue) WHERE state = 'running';
-- At most one active job per unique key. A job whose cancel was requested no longer holds its key.
-- Queries that look a key up repeat this WHERE word for word, so SQLite can use the index.
CREATE UNIQUE INDEX idx_jobs_unique_key ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND cancel_requested = 0
      AND (state = 'scheduled' OR state = 'pending' OR state = 'blocked' OR state = 'running');
-- Finished jobs by age, for retention pruning (finished_at is set exactly when a job is finished).
CREATE INDEX idx_jobs_finished ON jobs (state, finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX idx_jobs_group ON jobs (group_id, group_position) WHERE group_id IS NOT NULL;

PRAGMA legacy_alter_table = OFF;
