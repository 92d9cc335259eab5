-- DurableQueue schema, version 6: schedules (periodic jobs).
--
-- A schedule enqueues its job at every tick of its rule: a cron expression on the wall clock of a
-- time zone, or a fixed interval. Every process running the queue fires due schedules; exactly one
-- job is enqueued per tick because the transaction that enqueues it also moves next_tick_at on,
-- and only while next_tick_at still holds the tick it read. Every existing row is kept.

CREATE TABLE schedules (
    name                 TEXT    NOT NULL PRIMARY KEY CHECK (name <> ''),
    -- The job each tick enqueues, as EnqueueOptions describe it.
    kind                 TEXT    NOT NULL,
    queue                TEXT    NOT NULL,
    input                TEXT    NOT NULL,
    priority             INTEGER NOT NULL,
    max_attempts         INTEGER,
    retry_policy         TEXT,
    timeout_ms           INTEGER,
    unique_key           TEXT,
    unique_policy        TEXT    NOT NULL CHECK (unique_policy IN ('keep', 'replace', 'allow')),
    tags                 TEXT    NOT NULL DEFAULT '[]',  -- a JSON array of strings
    throttle_interval_ms INTEGER,
    -- The rule: a cron expression in a time zone, or an interval in milliseconds.
    cron                 TEXT,
    time_zone            TEXT,
    interval_ms          INTEGER CHECK (interval_ms >= 1000),
    jitter_ms            INTEGER NOT NULL DEFAULT 0 CHECK (jitter_ms >= 0),
    missed               TEXT    NOT NULL CHECK (missed IN ('skip', 'run_once', 'catch_up')),
    catch_up_max         INTEGER CHECK (catch_up_max >= 1),
    paused               INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    -- When the next tick is due (ms since 1970); NULL when the rule has no more ticks.
    next_tick_at         INTEGER,
    last_tick_at         INTEGER,
    last_job_id          INTEGER,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    CHECK ((cron IS NULL) <> (interval_ms IS NULL)),
    CHECK ((cron IS NULL) = (time_zone IS NULL))
);

-- The engines' question "when is the next tick due?" reads the first entry.
CREATE INDEX schedules_next_tick ON schedules (next_tick_at) WHERE paused = 0 AND next_tick_at IS NOT NULL;

-- Every schedule with its rule, next and last tick, and the state of the job it enqueued last.
CREATE VIEW schedule_list AS
SELECT s.name,
       s.kind,
       s.queue,
       CASE WHEN s.cron IS NOT NULL THEN 'cron ' || s.cron || ' (' || s.time_zone || ')'
            ELSE 'every ' || (s.interval_ms / 1000) || ' s' END                              AS rule,
       CASE s.paused WHEN 1 THEN 'paused' ELSE 'active' END                                  AS status,
       s.missed,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.next_tick_at / 1000.0, 'unixepoch')                  AS next_tick,
       strftime('%Y-%m-%dT%H:%M:%fZ', s.last_tick_at / 1000.0, 'unixepoch')                  AS last_tick,
       s.last_job_id,
       j.state                                                                               AS last_job_state
FROM schedules AS s
LEFT JOIN jobs AS j ON j.id = s.last_job_id
ORDER BY s.name;
