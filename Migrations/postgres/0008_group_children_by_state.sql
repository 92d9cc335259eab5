-- DurableQueue PostgreSQL schema, version 8: a group's child jobs indexed by state as well as
-- position, as the SQLite file's migration 0014 has it. Advancing a group after one of its children
-- ended read every child; with (group, state, position) it reads only the children that decide what
-- comes next, and every child once, when the group ends. No row changes.
DROP INDEX idx_jobs_group;
CREATE INDEX idx_jobs_group_state ON jobs (group_id, state, group_position) WHERE group_id IS NOT NULL;
