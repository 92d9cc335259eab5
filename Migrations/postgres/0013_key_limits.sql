-- DurableQueue PostgreSQL schema, version 13: throttles, rate limits and overrides per partition key,
-- as the SQLite file's migration 0019 has them. Each key's next allowed start, the gap kept after
-- each of its jobs ends and its recent starts are stored in partition_keys by the claim that starts
-- its jobs (under the queue's lock), so no node and no restart lets a key start early. Every row is
-- kept; no queue has limits per key yet.
ALTER TABLE queues ADD COLUMN key_throttle_interval_ms bigint NOT NULL DEFAULT 0;
ALTER TABLE queues ADD COLUMN key_throttle_measured_from text NOT NULL DEFAULT 'start'
    CHECK (key_throttle_measured_from IN ('start', 'end'));
ALTER TABLE queues ADD COLUMN key_rate_limit_count integer NOT NULL DEFAULT 0;
ALTER TABLE queues ADD COLUMN key_rate_limit_window_ms bigint NOT NULL DEFAULT 0;

CREATE TABLE key_limits (
    queue                  text    NOT NULL REFERENCES queues (name),
    pattern                text    NOT NULL,
    concurrency_limit      integer NOT NULL DEFAULT 0,
    throttle_interval_ms   bigint  NOT NULL DEFAULT 0,
    throttle_measured_from text    NOT NULL DEFAULT 'start' CHECK (throttle_measured_from IN ('start', 'end')),
    rate_limit_count       integer NOT NULL DEFAULT 0,
    rate_limit_window_ms   bigint  NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, pattern)
);

ALTER TABLE partition_keys ADD COLUMN next_start_at bigint NOT NULL DEFAULT 0;
ALTER TABLE partition_keys ADD COLUMN end_gap_ms bigint NOT NULL DEFAULT 0;
ALTER TABLE partition_keys ADD COLUMN recent_starts bigint[] NOT NULL DEFAULT '{}';
CREATE INDEX idx_partition_keys_next_start ON partition_keys (next_start_at) WHERE next_start_at > 0;

DROP VIEW partition_status;
CREATE VIEW partition_status AS
SELECT s.*, coalesce(k.next_start_at, 0) AS next_start_at
FROM (SELECT queue,
             partition_key                                   AS key,
             count(*) FILTER (WHERE state = 'scheduled')     AS scheduled,
             count(*) FILTER (WHERE state = 'pending')       AS pending,
             count(*) FILTER (WHERE state = 'blocked')       AS blocked,
             count(*) FILTER (WHERE state = 'running')       AS running,
             count(*) FILTER (WHERE state = 'handed_off')    AS handed_off,
             count(*) FILTER (WHERE state = 'waiting')       AS waiting
      FROM jobs
      WHERE state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
      GROUP BY queue, partition_key) AS s
LEFT JOIN partition_keys AS k ON k.queue = s.queue AND k.key = s.key;
