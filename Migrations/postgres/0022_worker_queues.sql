-- DurableQueue PostgreSQL schema, version 22: the queues a worker runs its kinds on, and whether its
-- process paused, as the SQLite file's migration 0028 has them.
--
-- `queues` is a JSON array (as text) of the queue names a worker limited to some queues runs
-- (`JobQueue.Configuration.queues`), NULL for one that runs every queue: `durableq status --by-kind`
-- counts it as running its kinds on those queues only. `paused_at` is when the worker's process
-- paused (`pauseInThisProcess()`), NULL while it runs: its rows count as paused, not as a worker that
-- stopped, however long ago they were seen (until rows not seen for an hour are deleted, as
-- every worker's are: a process killed while paused is forgotten then). No row changes.
ALTER TABLE worker_kinds ADD COLUMN queues text;
ALTER TABLE worker_kinds ADD COLUMN paused_at bigint;

-- The same with readable times, and the new columns.
CREATE OR REPLACE VIEW worker_kind_list AS
SELECT worker_id,
       kind,
       lowest_version,
       highest_version,
       iso_time(started_at) AS started,
       iso_time(seen_at)    AS seen,
       queues,
       iso_time(paused_at)  AS paused
FROM worker_kinds;
