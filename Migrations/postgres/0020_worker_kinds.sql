-- DurableQueue PostgreSQL schema, version 20: which job kinds each running worker runs, at which
-- versions, as the SQLite file's migration 0027 has it.
--
-- A worker's `run()` writes a row per job type it registered when it starts: the lowest and the
-- highest version of that type it runs (`Job.version`, and the earlier versions its
-- `Job.inputMigrations` reach). It writes them again about once a minute while it runs (`seen_at`),
-- and deletes them when it stops. A worker whose rows were not seen for three minutes stopped
-- without saying so (killed, frozen, its host lost); rows not seen for an hour are deleted by the
-- next worker that writes its own. `durableq status --by-kind` reads it. Unlike `workers` (the
-- liveness of workers holding leases, which recovery reads), nothing here decides a claim.
CREATE TABLE worker_kinds (
    worker_id       text    NOT NULL,
    kind            text    NOT NULL,
    lowest_version  integer NOT NULL,
    highest_version integer NOT NULL,
    started_at      bigint  NOT NULL,
    seen_at         bigint  NOT NULL,
    PRIMARY KEY (worker_id, kind)
);

-- The same with readable times.
CREATE VIEW worker_kind_list AS
SELECT worker_id,
       kind,
       lowest_version,
       highest_version,
       iso_time(started_at) AS started,
       iso_time(seen_at)    AS seen
FROM worker_kinds;
