-- DurableQueue schema, version 20: poison jobs.
--
-- A job whose worker stops (its lease expires, its process is gone) during several attempts in a
-- row, none of which saved a checkpoint or committed a step, fails as a poison job, whatever
-- retries it has left (the engine's `lostAttemptLimit`, 3 by default). Recovery counts such
-- attempts here. Every row is kept; existing jobs start with none lost.

-- How many attempts in a row ended with their worker stopped, without progress.
ALTER TABLE jobs ADD COLUMN lost_in_a_row INTEGER NOT NULL DEFAULT 0 CHECK (lost_in_a_row >= 0);
-- The number of the last attempt whose worker stopped (NULL: none since the job was enqueued or retried).
ALTER TABLE jobs ADD COLUMN last_lost_attempt INTEGER;
