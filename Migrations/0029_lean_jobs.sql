-- DurableQueue schema, version 29: a narrow job row; what only some jobs use lives beside it.
--
-- Every claim and every ending rewrites a job's whole row, and SQLite reads each column of the old
-- row to write the new one: with 45 columns that was most of a claim's cost. The columns of
-- features a plain job never uses move to tables keyed by the job's id, each written only for the
-- jobs that use the feature:
--
--   job_options        what the enqueuer chose beyond the defaults: retry policy, timeout, trace
--                      context, the job's throttle interval (and whether the job or its queue set it)
--   job_attempt_state  what attempts left behind: progress, checkpoint, the attempts that saved a
--                      new checkpoint, the attempts lost in a row
--   job_wait_targets   the latest hand-off (carrier, reference, deadline) and wait (signal,
--                      deadline), and the one under way, with its deadline, indexed
--
-- `extras` on the row says which of them holds a row for the job (1: job_options, 2:
-- job_attempt_state, 4: job_wait_targets), so a claim reads them only for the jobs that have one.
--
-- Fewer indexes read `state`: every claim and ending evaluated seven; now four (the pending,
-- running, scheduled and group ones). The unique key is found by the store, which inserts a job
-- only after looking its key up in the same write transaction, through an index that a change of
-- state leaves alone. Columns stay in the
-- order SQLite reads them fastest: small integers first, text and blobs last.
--
-- History rows (job_events) no longer carry a foreign key, which SQLite checked with a search of
-- jobs for each row written: a trigger deletes a job's rows with it instead.
--
-- The views keep their columns: they join the side tables back. Every row of every job is kept; a
-- side row is written only where a value differs from its default. SQLite cannot drop columns that
-- indexes and views name, so the table is rebuilt as versions 15, 17 and 26 did: a new table, every
-- row copied with its id, the old one dropped, the new one renamed, indexes and trigger created
-- again. Foreign keys are off while a migration runs (see Migrator); legacy_alter_table keeps the
-- views' references to `jobs` as they are.

PRAGMA legacy_alter_table = ON;

CREATE TABLE jobs_rebuilt (
    id               INTEGER PRIMARY KEY,  -- never reused: see job_id_floor
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
    -- How many job_events rows the job has.
    event_count      INTEGER NOT NULL DEFAULT 0,
    -- Until when the running attempt's lease holds without a heartbeat.
    lease_expires_at INTEGER,
    -- Durable cancel request: once 1, the job never starts again.
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested = 0 OR cancel_requested = 1),
    -- The version of the job type's input the job was enqueued with (see Job.version).
    version          INTEGER NOT NULL DEFAULT 1,
    -- Which side tables hold a row for the job: 1 job_options, 2 job_attempt_state, 4 job_wait_targets.
    extras           INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    started_at       INTEGER,           -- start of the latest attempt
    finished_at      INTEGER,           -- set when the job reaches a terminal state
    -- The transaction that created the job, for job_history's order.
    created_tx       INTEGER,
    -- The job's sequence or concurrent group, if any.
    group_id         INTEGER REFERENCES groups (id) ON DELETE SET NULL,
    group_position   INTEGER,
    takes_previous_output INTEGER NOT NULL DEFAULT 0 CHECK (takes_previous_output = 0 OR takes_previous_output = 1),
    -- The state the job was created in; job_history shows its creation from this row. NULL for jobs
    -- created before version 11, whose creation is a job_events row.
    created_state    TEXT CHECK (created_state IS NULL OR created_state = 'scheduled' OR created_state = 'pending'
                                 OR created_state = 'blocked'),
    queue            TEXT    NOT NULL REFERENCES queues (name),
    kind             TEXT    NOT NULL CHECK (length(kind) > 0),
    -- Which worker runs the job.
    lease_owner      TEXT,
    -- The partition whose limit the job counts against.
    partition_key    TEXT,
    -- While the job is active, no other active job has the same key: the store looks the key up
    -- (idx_jobs_unique_key) inside the transaction that inserts the job.
    unique_key       TEXT,
    step_name        TEXT,
    input            TEXT    NOT NULL,  -- JSON
    output           TEXT,              -- JSON, once succeeded
    error            TEXT               -- JSON {type, message, retryable} of the last failed attempt
) STRICT;

CREATE TABLE job_options (
    job_id                   INTEGER NOT NULL PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    timeout_ms               INTEGER CHECK (timeout_ms IS NULL OR timeout_ms > 0),
    -- The throttle interval kept after this job (see 0002_throttle) and where it came from.
    throttle_interval_ms     INTEGER NOT NULL DEFAULT 0 CHECK (throttle_interval_ms >= 0),
    throttle_interval_source TEXT    NOT NULL DEFAULT 'queue'
                                     CHECK (throttle_interval_source = 'queue' OR throttle_interval_source = 'job'),
    retry_policy             TEXT,  -- JSON, read by the engine; NULL: the engine's default
    trace_context            TEXT   -- the enqueuer's trace context, a JSON object
) STRICT, WITHOUT ROWID;

CREATE TABLE job_attempt_state (
    job_id              INTEGER NOT NULL PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    -- Attempts that saved a new checkpoint, and the attempt that saved the current one.
    progressed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (progressed_attempts >= 0),
    checkpoint_attempt  INTEGER,
    -- Poison jobs: attempts in a row whose worker stopped without progress, and the last one.
    lost_in_a_row       INTEGER NOT NULL DEFAULT 0 CHECK (lost_in_a_row >= 0),
    last_lost_attempt   INTEGER,
    progress            REAL CHECK (progress IS NULL OR (progress >= 0 AND progress <= 1)),
    checkpoint          BLOB   -- opaque bytes a handler saves to resume
) STRICT, WITHOUT ROWID;

CREATE TABLE job_wait_targets (
    job_id            INTEGER NOT NULL PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    -- 'handed_off' or 'waiting' while the job is in that state for this row's hand-off or wait;
    -- NULL once it left it (the store clears it; a sweep clears any it finds out of date).
    active            TEXT CHECK (active IS NULL OR active = 'handed_off' OR active = 'waiting'),
    -- The active hand-off's or wait's deadline (NULL: none), for idx_job_wait_targets_active.
    due_at            INTEGER,
    -- The job's latest hand-off: the carrier its attempt was handed to, what the carrier calls the
    -- transfer, when it times out. Kept after the job leaves 'handed_off', as a record.
    handoff_deadline  INTEGER,
    handed_off_to     TEXT,
    handoff_reference TEXT,
    -- The job's latest wait: the signal's name and when the wait times out. Kept as a record.
    wait_deadline     INTEGER,
    waiting_for       TEXT
) STRICT, WITHOUT ROWID;

INSERT INTO jobs_rebuilt (id, state, priority, order_key, run_at, attempts, max_attempts, event_count,
                          lease_expires_at, cancel_requested, version, extras, created_at, updated_at,
                          started_at, finished_at, created_tx, group_id, group_position,
                          takes_previous_output, created_state, queue, kind, lease_owner, partition_key,
                          unique_key, step_name, input, output, error)
SELECT id, state, priority, order_key, run_at, attempts, max_attempts, event_count, lease_expires_at,
       cancel_requested, version,
       (retry_policy IS NOT NULL OR timeout_ms IS NOT NULL OR trace_context IS NOT NULL
        OR throttle_interval_ms != 0 OR throttle_interval_source != 'queue')
       | ((progressed_attempts != 0 OR checkpoint_attempt IS NOT NULL OR lost_in_a_row != 0
           OR last_lost_attempt IS NOT NULL OR progress IS NOT NULL OR checkpoint IS NOT NULL) << 1)
       | ((handed_off_to IS NOT NULL OR waiting_for IS NOT NULL) << 2),
       created_at, updated_at, started_at, finished_at, created_tx, group_id, group_position,
       takes_previous_output, created_state, queue, kind, lease_owner, partition_key, unique_key, step_name,
       input, output, error
FROM jobs;

INSERT INTO job_options (job_id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy,
                         trace_context)
SELECT id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy, trace_context
FROM jobs
WHERE retry_policy IS NOT NULL OR timeout_ms IS NOT NULL OR trace_context IS NOT NULL OR throttle_interval_ms != 0
   OR throttle_interval_source != 'queue';

INSERT INTO job_attempt_state (job_id, progressed_attempts, checkpoint_attempt, lost_in_a_row, last_lost_attempt,
                               progress, checkpoint)
SELECT id, progressed_attempts, checkpoint_attempt, lost_in_a_row, last_lost_attempt, progress, checkpoint
FROM jobs
WHERE progressed_attempts != 0 OR checkpoint_attempt IS NOT NULL OR lost_in_a_row != 0
   OR last_lost_attempt IS NOT NULL OR progress IS NOT NULL OR checkpoint IS NOT NULL;

INSERT INTO job_wait_targets (job_id, active, due_at, handoff_deadline, handed_off_to, handoff_reference,
                              wait_deadline, waiting_for)
SELECT id, CASE WHEN state = 'handed_off' OR state = 'waiting' THEN state END,
       CASE state WHEN 'handed_off' THEN handoff_deadline WHEN 'waiting' THEN wait_deadline END,
       handoff_deadline, handed_off_to, handoff_reference, wait_deadline, waiting_for
FROM jobs
WHERE handed_off_to IS NOT NULL OR waiting_for IS NOT NULL;

DROP TABLE jobs;
ALTER TABLE jobs_rebuilt RENAME TO jobs;

-- A claim changes two entries: one leaves idx_jobs_next_pending, one joins idx_jobs_running.
CREATE INDEX idx_jobs_next_pending ON jobs (queue, priority DESC, order_key) WHERE state = 'pending';
CREATE INDEX idx_jobs_running ON jobs (queue, partition_key) WHERE state = 'running';
-- Only these two indexes read `state`: a claim or an ending evaluates each index whose columns or
-- WHERE name a column it sets (each cost about 1,000 instructions per change, callgrind).
CREATE INDEX idx_jobs_scheduled ON jobs (run_at) WHERE state = 'scheduled';
CREATE INDEX idx_jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX idx_jobs_unique_key ON jobs (unique_key, created_at) WHERE unique_key IS NOT NULL;
CREATE INDEX idx_jobs_group_state ON jobs (group_id, state, group_position) WHERE group_id IS NOT NULL;
CREATE INDEX idx_job_wait_targets_active ON job_wait_targets (active, due_at) WHERE active IS NOT NULL;

-- A deleted job's id stays used: raise the floor the next id is counted from.
CREATE TRIGGER jobs_deleted_raise_id_floor AFTER DELETE ON jobs
WHEN old.id > (SELECT id FROM job_id_floor)
BEGIN
    UPDATE job_id_floor SET id = old.id;
END;

-- A deleted job's history goes with it. This was job_events' foreign key, which SQLite checked
-- by a search of jobs on every history row written (about 1,500 instructions a row, two rows a
-- job); a trigger on the rare delete does the same work only then.
CREATE TRIGGER jobs_deleted_delete_history AFTER DELETE ON jobs
BEGIN
    DELETE FROM job_events WHERE job_id = old.id;
END;

-- The history, every row kept, without the foreign key.
CREATE TABLE job_events_rebuilt (
    job_id     INTEGER NOT NULL,  -- the job's id; its rows are deleted with it (jobs_deleted_delete_history)
    seq        INTEGER NOT NULL,  -- the job's first event row is 1, the next 2 …
    at         INTEGER NOT NULL,
    from_state TEXT,              -- NULL for the event that created the job (before version 11)
    to_state   TEXT    NOT NULL,
    attempt    INTEGER NOT NULL,  -- the job's attempt count after the change
    reason     TEXT,              -- why, in words: 'claimed', 'lease expired', an error …
    worker     TEXT,              -- the lease owner involved, if any
    tx         INTEGER,           -- the transaction that wrote the row, for job_history's order
    PRIMARY KEY (job_id, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO job_events_rebuilt (job_id, seq, at, from_state, to_state, attempt, reason, worker, tx)
SELECT job_id, seq, at, from_state, to_state, attempt, reason, worker, tx FROM job_events;

DROP TABLE job_events;
ALTER TABLE job_events_rebuilt RENAME TO job_events;

PRAGMA legacy_alter_table = OFF;

-- The same columns, the moved ones read from their tables.
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
       a.progress,
       coalesce(o.throttle_interval_ms, 0)                                                  AS throttle_interval_ms,
       coalesce(o.throttle_interval_source, 'queue')                                        AS throttle_interval_source,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.run_at / 1000.0, 'unixepoch')                       AS run_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.created_at / 1000.0, 'unixepoch')                   AS created_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.started_at / 1000.0, 'unixepoch')                   AS started_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.finished_at / 1000.0, 'unixepoch')                  AS finished_at,
       j.lease_owner,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.lease_expires_at / 1000.0, 'unixepoch')             AS lease_expires_at,
       json_extract(j.error, '$.message')                                                   AS error_message,
       j.input,
       j.output
FROM jobs AS j
LEFT JOIN job_options AS o ON o.job_id = j.id
LEFT JOIN job_attempt_state AS a ON a.job_id = j.id;

DROP VIEW job_handoffs;
CREATE VIEW job_handoffs AS
SELECT j.id,
       j.queue,
       j.kind,
       j.attempts                                                                    AS attempt,
       w.handed_off_to,
       w.handoff_reference,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.updated_at / 1000.0, 'unixepoch')             AS handed_off_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', w.handoff_deadline / 1000.0, 'unixepoch')       AS deadline
FROM jobs AS j
JOIN job_wait_targets AS w ON w.job_id = j.id
WHERE j.state = 'handed_off';

DROP VIEW job_waits;
CREATE VIEW job_waits AS
SELECT j.id,
       j.queue,
       j.kind,
       j.attempts                                                             AS attempt,
       w.waiting_for,
       strftime('%Y-%m-%dT%H:%M:%fZ', j.updated_at / 1000.0, 'unixepoch')      AS waiting_since,
       strftime('%Y-%m-%dT%H:%M:%fZ', w.wait_deadline / 1000.0, 'unixepoch')   AS deadline
FROM jobs AS j
JOIN job_wait_targets AS w ON w.job_id = j.id
WHERE j.state = 'waiting';
