-- DurableQueue schema, version 19: throttles, rate limits and overrides per partition key.
--
-- A queue's key_throttle_* and key_rate_limit_* apply to each partition key (beside partition_limit,
-- its running jobs); key_limits holds the keys whose limits differ (an exact key, or a prefix ending
-- in '*'; the most specific wins). Each key's next allowed start, the gap kept after each of its
-- jobs ends (a throttle measured from the end) and its recent starts (a JSON array of times, for
-- its rate limit) are stored in partition_keys by the claim that starts its jobs, so a restart or
-- a crash never lets a key start early. Every row is kept; no queue has limits per key yet.
ALTER TABLE queues ADD COLUMN key_throttle_interval_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queues ADD COLUMN key_throttle_measured_from TEXT NOT NULL DEFAULT 'start'
    CHECK (key_throttle_measured_from IN ('start', 'end'));
ALTER TABLE queues ADD COLUMN key_rate_limit_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE queues ADD COLUMN key_rate_limit_window_ms INTEGER NOT NULL DEFAULT 0;

CREATE TABLE key_limits (
    queue                  TEXT    NOT NULL REFERENCES queues (name),
    pattern                TEXT    NOT NULL,  -- an exact key, or a prefix ending in '*'
    concurrency_limit      INTEGER NOT NULL DEFAULT 0,
    throttle_interval_ms   INTEGER NOT NULL DEFAULT 0,
    throttle_measured_from TEXT    NOT NULL DEFAULT 'start' CHECK (throttle_measured_from IN ('start', 'end')),
    rate_limit_count       INTEGER NOT NULL DEFAULT 0,
    rate_limit_window_ms   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, pattern)
) STRICT, WITHOUT ROWID;

ALTER TABLE partition_keys ADD COLUMN next_start_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE partition_keys ADD COLUMN end_gap_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE partition_keys ADD COLUMN recent_starts TEXT NOT NULL DEFAULT '[]';
-- The earliest next start ahead, for when an idle worker wakes.
CREATE INDEX idx_partition_keys_next_start ON partition_keys (next_start_at) WHERE next_start_at > 0;

-- partition_status gains each key's next allowed start (0: none).
DROP VIEW partition_status;
CREATE VIEW partition_status AS
SELECT s.*, coalesce(k.next_start_at, 0) AS next_start_at
FROM (SELECT queue,
             partition_key                          AS key,
             coalesce(sum(state = 'scheduled'), 0)  AS scheduled,
             coalesce(sum(state = 'pending'), 0)    AS pending,
             coalesce(sum(state = 'blocked'), 0)    AS blocked,
             coalesce(sum(state = 'running'), 0)    AS running,
             coalesce(sum(state = 'handed_off'), 0) AS handed_off,
             coalesce(sum(state = 'waiting'), 0)    AS waiting
      FROM jobs
      WHERE state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
      GROUP BY queue, partition_key) AS s
LEFT JOIN partition_keys AS k ON k.queue = s.queue AND k.key = s.key;
