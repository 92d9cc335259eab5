-- DurableQueue PostgreSQL schema, version 5: aging, as the SQLite file's migration 0009 has it.
-- A pending job's priority rises by one every aging_interval_ms it waits, up to aging_limit;
-- 0: no aging. Every row is kept.
ALTER TABLE queues ADD COLUMN aging_interval_ms bigint NOT NULL DEFAULT 0 CHECK (aging_interval_ms >= 0);
ALTER TABLE queues ADD COLUMN aging_limit integer NOT NULL DEFAULT 0;
