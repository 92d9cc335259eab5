-- DurableQueue PostgreSQL schema, version 7: a job's creation is recorded by its row, as the SQLite
-- file's migration 0011 has it. An enqueue writes the job (and its tags) and no job_events row:
-- created_at and created_state say when and in which state the job was created, and job_history
-- shows that as the job's first event. Every later state change still appends its job_events row.
-- Every row is kept; jobs created earlier have their creation as a job_events row and no
-- created_state.
ALTER TABLE jobs ADD COLUMN created_state text
    CHECK (created_state IS NULL OR created_state IN ('scheduled', 'pending', 'blocked'));

DROP VIEW job_history;
CREATE VIEW job_history AS
SELECT h.job_id,
       j.queue,
       j.kind,
       iso_time(h.at) AS at,
       h.from_state,
       h.to_state,
       h.attempt,
       h.reason,
       h.worker
FROM (SELECT id AS job_id, 0::bigint AS event_id, created_at AS at, NULL::text AS from_state, created_state AS to_state,
             0 AS attempt, 'enqueued'::text AS reason, NULL::text AS worker
      FROM jobs WHERE created_state IS NOT NULL
      UNION ALL
      SELECT job_id, id, at, from_state, to_state, attempt, reason, worker FROM job_events) AS h
JOIN jobs AS j ON j.id = h.job_id
ORDER BY h.job_id, h.event_id;
