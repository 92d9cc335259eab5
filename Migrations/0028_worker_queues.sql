-- DurableQueue schema, version 28: the queues a worker runs its kinds on, and whether its process
-- paused.
--
-- `queues` is a JSON array of the queue names a worker limited to some queues runs
-- (`JobQueue.Configuration.queues`), NULL for one that runs every queue: `durableq status --by-kind`
-- counts it as running its kinds on those queues only. `paused_at` is when the worker's process
-- paused (`pauseInThisProcess()`, an app going to the background), NULL while it runs: a paused
-- worker writes nothing until it resumes, so its rows count as paused, not as a worker that stopped,
-- however long ago they were seen (until rows not seen for an hour are deleted, as every
-- worker's are: a process killed while paused is forgotten then). Rows written before this
-- version run every queue and are not paused. No row changes.
ALTER TABLE worker_kinds ADD COLUMN queues TEXT;
ALTER TABLE worker_kinds ADD COLUMN paused_at INTEGER;

-- The same with readable times, and the new columns.
DROP VIEW worker_kind_list;
CREATE VIEW worker_kind_list AS
SELECT worker_id,
       kind,
       lowest_version,
       highest_version,
       strftime('%Y-%m-%dT%H:%M:%fZ', started_at / 1000.0, 'unixepoch') AS started,
       strftime('%Y-%m-%dT%H:%M:%fZ', seen_at / 1000.0, 'unixepoch')    AS seen,
       queues,
       strftime('%Y-%m-%dT%H:%M:%fZ', paused_at / 1000.0, 'unixepoch')  AS paused
FROM worker_kinds;
