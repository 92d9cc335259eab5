-- DurableQueue schema, version 3: sequences, concurrent groups, and the keyed results cache.

-- A sequence (children one after another) or a concurrent group (children in parallel, at most
-- max_concurrent at once; 0: no limit). Children are jobs (jobs.group_id) and groups (parent_id),
-- ordered by position. 'blocked' waits for its turn in its parent; 'running' has started.
CREATE TABLE groups (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT    NOT NULL CHECK (kind IN ('sequence', 'concurrent')),
    state            TEXT    NOT NULL CHECK (state IN ('blocked', 'running', 'succeeded', 'failed', 'cancelled')),
    parent_id        INTEGER REFERENCES groups (id) ON DELETE CASCADE,
    position         INTEGER NOT NULL DEFAULT 0,
    name             TEXT,
    max_concurrent   INTEGER NOT NULL DEFAULT 0 CHECK (max_concurrent >= 0),
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    output           TEXT,   -- JSON object of the children's outputs by name (or position), once succeeded
    error            TEXT,   -- why it did not succeed
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL,
    finished_at      INTEGER
) STRICT;
CREATE INDEX idx_groups_parent ON groups (parent_id, position) WHERE parent_id IS NOT NULL;
CREATE INDEX idx_groups_finished ON groups (finished_at) WHERE parent_id IS NULL AND finished_at IS NOT NULL;

-- Every state change of every group, like job_events.
CREATE TABLE group_events (
    id         INTEGER PRIMARY KEY,
    group_id   INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    at         INTEGER NOT NULL,
    from_state TEXT,
    to_state   TEXT    NOT NULL,
    reason     TEXT
) STRICT;
CREATE INDEX idx_group_events_group ON group_events (group_id, id);

-- A job's place in a group: its group, position, name, and whether its input is the output of the
-- step before it (filled in when it is unblocked).
ALTER TABLE jobs ADD COLUMN group_id INTEGER REFERENCES groups (id) ON DELETE SET NULL;
ALTER TABLE jobs ADD COLUMN group_position INTEGER;
ALTER TABLE jobs ADD COLUMN step_name TEXT;
ALTER TABLE jobs ADD COLUMN takes_previous_output INTEGER NOT NULL DEFAULT 0 CHECK (takes_previous_output IN (0, 1));
CREATE INDEX idx_jobs_group ON jobs (group_id, group_position) WHERE group_id IS NOT NULL;

-- The keyed results cache: one row per (namespace, key), its state, the job computing it, the stored
-- output or last error, and how many computations failed (a key stops retrying at max_failures).
CREATE TABLE cache_entries (
    namespace    TEXT    NOT NULL,
    key          TEXT    NOT NULL,
    state        TEXT    NOT NULL CHECK (state IN ('inProgress', 'complete', 'failed')),
    kind         TEXT    NOT NULL,
    job_id       INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
    output       TEXT,
    error        TEXT,
    failures     INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
    max_failures INTEGER CHECK (max_failures IS NULL OR max_failures > 0),
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (namespace, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX idx_cache_entries_job ON cache_entries (job_id) WHERE job_id IS NOT NULL;

-- Groups with readable times and their children's states.
CREATE VIEW group_list AS
SELECT g.id,
       g.kind,
       g.name,
       g.parent_id,
       g.state,
       g.max_concurrent,
       g.cancel_requested,
       (SELECT count(*) FROM jobs AS j WHERE j.group_id = g.id)
         + (SELECT count(*) FROM groups AS c WHERE c.parent_id = g.id)                  AS children,
       (SELECT count(*) FROM jobs AS j WHERE j.group_id = g.id AND j.state = 'succeeded')
         + (SELECT count(*) FROM groups AS c WHERE c.parent_id = g.id AND c.state = 'succeeded') AS succeeded,
       strftime('%Y-%m-%dT%H:%M:%fZ', g.created_at / 1000.0, 'unixepoch')                AS created_at,
       strftime('%Y-%m-%dT%H:%M:%fZ', g.finished_at / 1000.0, 'unixepoch')               AS finished_at,
       g.error,
       g.output
FROM groups AS g;

-- Cache entries with readable times.
CREATE VIEW cache_list AS
SELECT c.namespace,
       c.key,
       c.state,
       c.kind,
       c.job_id,
       c.failures,
       c.max_failures,
       json_extract(c.error, '$.message')                                   AS error_message,
       strftime('%Y-%m-%dT%H:%M:%fZ', c.updated_at / 1000.0, 'unixepoch')  AS updated_at,
       c.output
FROM cache_entries AS c;
