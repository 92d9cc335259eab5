-- DurableQueue schema, version 16: durable steps inside a job.
--
-- A handler's `context.step(name) { … }` runs its body once: the step's output is committed here,
-- with a history row, when the body returns, and any later attempt of the job gets it back without
-- running the body again. Written only by the attempt the job's row shows running under its worker
-- (the same fence as every other write of an attempt). Rows go with their job.
CREATE TABLE job_steps (
    job_id      INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL CHECK (length(name) > 0),
    attempt     INTEGER NOT NULL CHECK (attempt > 0),  -- the attempt that ran the body
    output      TEXT    NOT NULL,                      -- JSON
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (job_id, name)
) STRICT, WITHOUT ROWID;

-- The steps of every job, with readable times.
CREATE VIEW job_step_list AS
SELECT s.job_id,
       j.kind,
       s.name,
       s.attempt,
       s.output,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.recorded_at / 1000.0, 'unixepoch') AS recorded_at
FROM job_steps AS s
JOIN jobs AS j ON j.id = s.job_id
ORDER BY s.job_id, s.recorded_at, s.name;
