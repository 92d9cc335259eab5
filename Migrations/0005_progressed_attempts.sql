-- DurableQueue schema, version 5: attempts that made progress do not use up the retry budget.
--
-- A job that saves checkpoints (a download) resumes where its last attempt stopped, so an attempt
-- that saved a new checkpoint before it was interrupted (kill -9, a dropped connection, a failure)
-- did not waste its turn. Such attempts are counted here and do not count against max_attempts:
-- the attempts that count are `attempts - progressed_attempts`. Every row is kept; existing jobs
-- start with none counted as progressed.

-- How many of the job's attempts saved a new checkpoint.
ALTER TABLE jobs ADD COLUMN progressed_attempts INTEGER NOT NULL DEFAULT 0 CHECK (progressed_attempts >= 0);
-- The attempt that saved the current checkpoint (NULL: none since the job was enqueued or retried).
ALTER TABLE jobs ADD COLUMN checkpoint_attempt INTEGER;
