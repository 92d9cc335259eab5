-- DurableQueue schema, version 27: which job kinds each running worker runs, at which versions.
--
-- A worker's `run()` writes a row per job type it registered when it starts: the lowest and the
-- highest version of that type it runs (`Job.version`, and the earlier versions its
-- `Job.inputMigrations` reach). It writes them again about once a minute while it runs (`seen_at`),
-- and deletes them when it stops. A worker whose rows were not seen for three minutes stopped
-- without saying so (killed, frozen, its host lost); rows not seen for an hour are deleted by the
-- next worker that writes its own. A drain (an app's background time) writes nothing here.
-- `durableq status --by-kind` reads it: jobs that wait for a version no live worker runs.
CREATE TABLE worker_kinds (
    worker_id       TEXT    NOT NULL,
    kind            TEXT    NOT NULL,
    lowest_version  INTEGER NOT NULL,
    highest_version INTEGER NOT NULL,
    started_at      INTEGER NOT NULL,
    seen_at         INTEGER NOT NULL,
    PRIMARY KEY (worker_id, kind)
) WITHOUT ROWID;

-- The same with readable times.
CREATE VIEW worker_kind_list AS
SELECT worker_id,
       kind,
       lowest_version,
       highest_version,
       strftime('%Y-%m-%dT%H:%M:%fZ', started_at / 1000.0, 'unixepoch') AS started,
       strftime('%Y-%m-%dT%H:%M:%fZ', seen_at / 1000.0, 'unixepoch')    AS seen
FROM worker_kinds;
