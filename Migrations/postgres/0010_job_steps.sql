-- DurableQueue PostgreSQL schema, version 10: durable steps inside a job, as the SQLite file's
-- migration 0016 has them. A step's output is committed with a history row when its body returns,
-- by the attempt the job's row shows running under its worker; later attempts read it back. Rows go
-- with their job.
CREATE TABLE job_steps (
    job_id      bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    name        text   NOT NULL CHECK (length(name) > 0),
    attempt     integer NOT NULL CHECK (attempt > 0),
    output      jsonb  NOT NULL,
    recorded_at bigint NOT NULL,
    PRIMARY KEY (job_id, name)
);

CREATE VIEW job_step_list AS
SELECT s.job_id,
       j.kind,
       s.name,
       s.attempt,
       s.output,
       iso_time(s.recorded_at) AS recorded_at
FROM job_steps AS s
JOIN jobs AS j ON j.id = s.job_id
ORDER BY s.job_id, s.recorded_at, s.name;
