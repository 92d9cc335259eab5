-- DurableQueue PostgreSQL schema, version 2: schedules (periodic jobs), as the SQLite file's
-- migration 0006 has them. Exactly one job per tick: the transaction that enqueues a tick's job
-- moves next_tick_at on, only while it still holds the tick it read (the row lock serialises
-- nodes that fire at once). Every existing row is kept.

CREATE TABLE schedules (
    name                 text    NOT NULL PRIMARY KEY CHECK (name <> ''),
    -- The job each tick enqueues, as EnqueueOptions describe it.
    kind                 text    NOT NULL,
    queue                text    NOT NULL,
    input                jsonb   NOT NULL,
    priority             integer NOT NULL,
    max_attempts         integer,
    retry_policy         text,
    timeout_ms           bigint,
    unique_key           text,
    unique_policy        text    NOT NULL CHECK (unique_policy IN ('keep', 'replace', 'allow')),
    tags                 jsonb   NOT NULL DEFAULT '[]',
    throttle_interval_ms bigint,
    -- The rule: a cron expression in a time zone, or an interval in milliseconds.
    cron                 text,
    time_zone            text,
    interval_ms          bigint  CHECK (interval_ms >= 1000),
    jitter_ms            bigint  NOT NULL DEFAULT 0 CHECK (jitter_ms >= 0),
    missed               text    NOT NULL CHECK (missed IN ('skip', 'run_once', 'catch_up')),
    catch_up_max         integer CHECK (catch_up_max >= 1),
    paused               integer NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    -- When the next tick is due (ms since 1970); NULL when the rule has no more ticks.
    next_tick_at         bigint,
    last_tick_at         bigint,
    last_job_id          bigint,
    created_at           bigint  NOT NULL,
    updated_at           bigint  NOT NULL,
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
       iso_time(s.next_tick_at)                                                              AS next_tick,
       iso_time(s.last_tick_at)                                                              AS last_tick,
       s.last_job_id,
       j.state                                                                               AS last_job_state
FROM schedules AS s
LEFT JOIN jobs AS j ON j.id = s.last_job_id
ORDER BY s.name;
