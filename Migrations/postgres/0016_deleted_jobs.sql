-- DurableQueue PostgreSQL schema, version 16: jobs deleted by a bulk action leave a line, as the
-- SQLite file's migration 0021 has them: a job deleted by hand goes with its history, tags and
-- steps; its id, queue, kind, final state, the time and the action's selection stay here. Jobs
-- pruned by retention leave none.
CREATE TABLE deleted_jobs (
    job_id     bigint PRIMARY KEY,
    queue      text   NOT NULL,
    kind       text   NOT NULL,
    state      text   NOT NULL,
    deleted_at bigint NOT NULL,
    reason     text   NOT NULL
);
