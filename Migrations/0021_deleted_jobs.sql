-- DurableQueue schema, version 21: jobs deleted by a bulk action leave a line.
--
-- A job deleted by hand (a bulk delete: the API, `durableq bulk delete`, the dashboard) goes with its
-- history, tags and steps; its id, queue, kind, final state, the time and the action's selection stay
-- here, so that "where did job 42 go?" has an answer. Jobs pruned by retention leave none.
CREATE TABLE deleted_jobs (
    job_id     INTEGER PRIMARY KEY,
    queue      TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    state      TEXT    NOT NULL,  -- the state it had finished in
    deleted_at INTEGER NOT NULL,
    reason     TEXT    NOT NULL   -- the action and its selection, in words
) STRICT;
