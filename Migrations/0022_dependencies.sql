-- DurableQueue schema, version 22: jobs that wait for other jobs.
--
-- A job enqueued with dependencies (EnqueueOptions.dependsOn) is `blocked` until each job it depends
-- on has ended, then `pending` (or `scheduled` until its run time); a dependency that failed or was
-- cancelled cancels it unless its edge says `run` or `ignore`. Each row is one edge, named: the
-- dependent reads the parent's output by that name, copied here when the parent ends (so pruning
-- the parent loses nothing). Every row is kept; no job has dependencies yet.
CREATE TABLE job_dependencies (
    job_id      INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,  -- the job that waits
    name        TEXT    NOT NULL CHECK (length(name) > 0),
    parent_id   INTEGER NOT NULL,                                         -- the job waited for
    on_failure  TEXT    NOT NULL CHECK (on_failure IN ('cancel', 'run', 'ignore')),
    outcome     TEXT    CHECK (outcome IN ('succeeded', 'failed', 'cancelled')),  -- NULL until it ends
    output      TEXT,                                                     -- its output (JSON), if it succeeded
    error       TEXT,                                                     -- its error (JSON), if it failed
    resolved_at INTEGER,
    PRIMARY KEY (job_id, name)
) STRICT, WITHOUT ROWID;
-- The edges by the job they wait for: a walk down the graph; those still waiting: what a job's end
-- looks up, and whether any waits at all (a probe per transaction that ends jobs).
CREATE INDEX idx_job_dependencies_parent ON job_dependencies (parent_id);
CREATE INDEX idx_job_dependencies_waiting ON job_dependencies (parent_id) WHERE outcome IS NULL;

-- Every edge, with readable times.
CREATE VIEW job_dependency_list AS
SELECT d.job_id,
       j.kind,
       j.state,
       d.name,
       d.parent_id,
       d.on_failure,
       coalesce(d.outcome, 'waiting') AS outcome,
       strftime('%Y-%m-%dT%H:%M:%fZ', d.resolved_at / 1000.0, 'unixepoch') AS resolved_at
FROM job_dependencies AS d
JOIN jobs AS j ON j.id = d.job_id;
