-- DurableQueue schema, version 18: keys take turns on a fair queue.
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
