-- DurableQueue schema, version 14: a group's child jobs indexed by state as well as position.
--
-- Each time a child of a group ended, advancing the group read every child (state and output) to
-- decide what to start next: a group of 2,000 jobs, 16 at a time, did 2,000 reads of 2,000 rows.
-- Indexed by (group, state, position), advancing reads only what it needs — the next blocked
-- children, the running ones, the first that did not succeed — and every child only once, when
-- the group ends. The index replaces idx_jobs_group (by group and position), whose lookups it still
-- answers. No row changes.

DROP INDEX idx_jobs_group;
CREATE INDEX idx_jobs_group_state ON jobs (group_id, state, group_position) WHERE group_id IS NOT NULL;
