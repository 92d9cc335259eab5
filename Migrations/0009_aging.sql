-- DurableQueue schema, version 9: aging, so that long-waiting low-priority jobs still run.
--
-- A queue with aging raises a pending job's priority by one for every aging_interval_ms it waits,
-- up to aging_limit. 0: no aging (strict priority, as before). Every row is kept; existing queues
-- have none.
ALTER TABLE queues ADD COLUMN aging_interval_ms INTEGER NOT NULL DEFAULT 0 CHECK (aging_interval_ms >= 0);
ALTER TABLE queues ADD COLUMN aging_limit INTEGER NOT NULL DEFAULT 0;
