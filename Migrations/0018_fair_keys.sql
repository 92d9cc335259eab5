-- DurableQueue schema, version 18: keys take turns on a fair queue; jobs by partition key.
--
-- On a queue whose fairness is 'by_key', each job's order key is a tag given at enqueue (start-time
-- fair queuing): the larger of the queue's virtual time (fair_time: the tag of the latest job it
-- started) and its key's last tag, plus a step. The claim's walk of idx_jobs_next_pending is then
-- round-robin over the keys (priorities still first) without a new index: a key with 100,000 waiting
-- jobs does not hold back a key with one. partition_keys keeps each key's last tag (jobs without a
-- key share the key ''). Every row is kept; existing queues are not fair.
ALTER TABLE queues ADD COLUMN fairness TEXT NOT NULL DEFAULT 'none' CHECK (fairness IN ('none', 'by_key'));
ALTER TABLE queues ADD COLUMN fair_time INTEGER NOT NULL DEFAULT 0;

CREATE TABLE partition_keys (
    queue    TEXT    NOT NULL REFERENCES queues (name),
    key      TEXT    NOT NULL,
    last_tag INTEGER NOT NULL,  -- the order key of the key's latest job on a fair queue
    PRIMARY KEY (queue, key)
) STRICT, WITHOUT ROWID;

-- Per queue and partition key, the unfinished jobs in each state (jobs without a key: key NULL).
CREATE VIEW partition_status AS
SELECT queue,
       partition_key                      AS key,
       coalesce(sum(state = 'scheduled'), 0)  AS scheduled,
       coalesce(sum(state = 'pending'), 0)    AS pending,
       coalesce(sum(state = 'blocked'), 0)    AS blocked,
       coalesce(sum(state = 'running'), 0)    AS running,
       coalesce(sum(state = 'handed_off'), 0) AS handed_off,
       coalesce(sum(state = 'waiting'), 0)    AS waiting
FROM jobs
WHERE state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
GROUP BY queue, partition_key;
