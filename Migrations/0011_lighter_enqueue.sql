-- DurableQueue schema, version 11: an enqueue writes the job row and nothing else.
--
-- Up to version 10, committing a new job wrote five pages of the file: the job's row, its place in
-- the index of waiting jobs, the AUTOINCREMENT counter (sqlite_sequence), its creation event in
-- job_events and that event's place in idx_job_events_job. This version writes the first two:
--
--   * A job's creation is recorded by its own row: created_at (already there) and created_state,
--     the state it was created in. job_history shows it as the job's first event, exactly as the
--     job_events row of earlier versions showed it. Every later state change still appends its
--     job_events row in the transaction that makes it. Jobs created before this version keep their
--     creation rows in job_events (their created_state is NULL).
--   * Job ids come from the jobs table itself: the next id is one more than the largest id in the
--     table or in job_id_floor, which holds the largest id of any deleted job (and the AUTOINCREMENT
--     counter of version 10). Deleting jobs (pruning, or by hand) raises it through a trigger; an
--     insert never writes it. So an id is never used twice, as AUTOINCREMENT guaranteed.
--
-- Dropping AUTOINCREMENT means rebuilding the table, as version 4 did: a new table with the same
-- columns, every row copied with its id, the old table dropped, the new one renamed, the indexes
-- created again. Foreign keys are off while a migration runs (see Migrator); legacy_alter_table
-- keeps the views' references to `jobs` as they are.

PRAGMA legacy_alter_table = ON;

-- The largest id of a deleted job, or of any job before version 11, so that ids are not used
-- again. One row: set here, raised by the trigger jobs_deleted_raise_id_floor, read by every insert.
CREATE TABLE job_id_floor (
    id INTEGER NOT NULL
) STRICT;
INSERT INTO job_id_floor (id)
SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'jobs'), 0), coalesce((SELECT max(id) FROM jobs), 0));

CREATE TABLE jobs_rebuilt (
    id               INTEGER PRIMARY KEY,  -- never reused: see job_id_floor
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
                                    OR created_state = 'blocked')
) STRICT;

INSERT INTO jobs_rebuilt (id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
                          timeout_ms, unique_key, cancel_requested, lease_owner, lease_expires_at, input, output,
                          error, progress, checkpoint, created_at, updated_at, started_at, finished_at,
                          throttle_interval_ms, throttle_interval_source, group_id, group_position, step_name,
                          takes_previous_output, progressed_attempts, checkpoint_attempt, trace_context, partition_key)
SELECT id, queue, kind, state, priority, order_key, run_at, attempts, max_attempts, retry_policy,
       timeout_ms, unique_key, cancel_requested, lease_owner, lease_expires_at, input, output,
       error, progress, checkpoint, created_at, updated_at, started_at, finished_at,
       throttle_interval_ms, throttle_interval_source, group_id, group_position, step_name,
       takes_previous_output, progressed_attempts, checkpoint_attempt, trace_context, partition_key
FROM jobs;

DROP TABLE jobs;
ALTER TABLE jobs_rebuilt RENAME TO jobs;

-- Every index of versions 4, 8 and 10, as they were.
CREATE INDEX idx_jobs_next_pending ON jobs (queue, priority DESC, order_key) WHERE state = 'pending';
CREATE INDEX idx_jobs_next_scheduled ON jobs (run_at) WHERE state = 'scheduled';
CREATE INDEX idx_jobs_running ON jobs (queue) WHERE state = 'running';
CREATE UNIQUE INDEX idx_jobs_unique_key ON jobs (unique_key)
    WHERE unique_key IS NOT NULL AND cancel_requested = 0
      AND (state = 'scheduled' OR state = 'pending' OR state = 'blocked' OR state = 'running');
CREATE INDEX idx_jobs_finished ON jobs (state, finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX idx_jobs_group ON jobs (group_id, group_position) WHERE group_id IS NOT NULL;
CREATE INDEX idx_jobs_unique_key_created ON jobs (unique_key, created_at) WHERE unique_key IS NOT NULL;
CREATE INDEX idx_jobs_running_partition ON jobs (queue, partition_key) WHERE state = 'running' AND partition_key IS NOT NULL;

-- A deleted job's id stays used: raise the floor the next id is counted from.
CREATE TRIGGER jobs_deleted_raise_id_floor AFTER DELETE ON jobs
WHEN old.id > (SELECT id FROM job_id_floor)
BEGIN
    UPDATE job_id_floor SET id = old.id;
END;

PRAGMA legacy_alter_table = OFF;

-- Every state change of every job, oldest first per job, with readable times: the creation from
-- the job's row (or, for jobs created before version 11, from its job_events row), then the events.
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
       h.worker
FROM (SELECT id AS job_id, 0 AS event_id, created_at AS at, NULL AS from_state, created_state AS to_state,
             0 AS attempt, 'enqueued' AS reason, NULL AS worker
      FROM jobs WHERE created_state IS NOT NULL
      UNION ALL
      SELECT job_id, id, at, from_state, to_state, attempt, reason, worker FROM job_events) AS h
JOIN jobs AS j ON j.id = h.job_id
ORDER BY h.job_id, h.event_id;
