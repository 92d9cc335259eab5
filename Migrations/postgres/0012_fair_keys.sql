-- DurableQueue PostgreSQL schema, version 12: keys take turns on a fair queue, as the SQLite file's
-- migration 0018 has it. On a queue whose fairness is 'by_key' each job's order key is a tag given at
-- enqueue: the larger of the queue's virtual time (fair_time) and its key's last tag
-- (partition_keys), plus a step. Every row is kept; existing queues are not fair.
ALTER TABLE queues ADD COLUMN fairness text NOT NULL DEFAULT 'none' CHECK (fairness IN ('none', 'by_key'));
ALTER TABLE queues ADD COLUMN fair_time bigint NOT NULL DEFAULT 0;

CREATE TABLE partition_keys (
    queue    text   NOT NULL REFERENCES queues (name),
    key      text   NOT NULL,
    last_tag bigint NOT NULL,
    PRIMARY KEY (queue, key)
);

-- Per queue and partition key, the unfinished jobs in each state (jobs without a key: key NULL).
CREATE VIEW partition_status AS
SELECT queue,
       partition_key                                   AS key,
       count(*) FILTER (WHERE state = 'scheduled')     AS scheduled,
       count(*) FILTER (WHERE state = 'pending')       AS pending,
       count(*) FILTER (WHERE state = 'blocked')       AS blocked,
       count(*) FILTER (WHERE state = 'running')       AS running,
       count(*) FILTER (WHERE state = 'handed_off')    AS handed_off,
       count(*) FILTER (WHERE state = 'waiting')       AS waiting
FROM jobs
WHERE state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
GROUP BY queue, partition_key;
