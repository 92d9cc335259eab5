-- DurableQueue schema, version 25: one index of the jobs that wait for a time, instead of three.
--
-- idx_jobs_next_scheduled (run_at) of scheduled jobs, idx_jobs_handed_off (handoff_deadline) of
-- handed-off jobs and idx_jobs_waiting (wait_deadline) of waiting jobs each hold the jobs of one
-- rarely entered state. SQLite opens every index of a table for each insert, and for each update
-- every index whose columns or condition name a column it sets: every claim and every ending sets
-- the state, so each of the three cost a plain job about 900 instructions when enqueued and about
-- 1,000 at each change of state, though it never enters them (callgrind, this schema, a C loop of
-- the library's statements: an ending 35,306 → 33,890, an insert 46,393 → 44,704 with one index).
--
-- idx_jobs_timed holds the same jobs, by state and then the time each state waits for: the due
-- scheduled jobs are a range of it (the claim's due probe, the promotion); the handed-off and the
-- waiting jobs are read from it, without the table, as they were from their own indexes. No row
-- changes.

DROP INDEX idx_jobs_next_scheduled;
DROP INDEX idx_jobs_handed_off;
DROP INDEX idx_jobs_waiting;
CREATE INDEX idx_jobs_timed ON jobs (state, run_at, handoff_deadline, wait_deadline)
    WHERE state = 'scheduled' OR state = 'handed_off' OR state = 'waiting';
