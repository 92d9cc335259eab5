-- DurableQueue PostgreSQL schema, version 17: jobs that wait for other jobs, as the SQLite file's
-- migration 0022 has them. A job enqueued with dependencies is `blocked` until each job it depends
-- on has ended; each row is one named edge, the parent's output copied here when it ends. Every
-- row is kept; no job has dependencies yet.
CREATE TABLE job_dependencies (
    job_id      bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    name        text   NOT NULL CHECK (length(name) > 0),
    parent_id   bigint NOT NULL,
    on_failure  text   NOT NULL CHECK (on_failure IN ('cancel', 'run', 'ignore')),
    outcome     text   CHECK (outcome IN ('succeeded', 'failed', 'cancelled')),
    output      jsonb,
    error       jsonb,
    resolved_at bigint,
    PRIMARY KEY (job_id, name)
);
CREATE INDEX idx_job_dependencies_parent ON job_dependencies (parent_id);
CREATE INDEX idx_job_dependencies_waiting ON job_dependencies (parent_id) WHERE outcome IS NULL;

CREATE VIEW job_dependency_list AS
SELECT d.job_id,
       j.kind,
       j.state,
       d.name,
       d.parent_id,
       d.on_failure,
       coalesce(d.outcome, 'waiting') AS outcome,
       iso_time(d.resolved_at) AS resolved_at
FROM job_dependencies AS d
JOIN jobs AS j ON j.id = d.job_id;
