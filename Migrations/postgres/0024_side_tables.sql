-- DurableQueue PostgreSQL schema, version 24: a narrow job row, as the SQLite file's version 29.
-- One design, two dialects: the same tables, columns and views as SQLite's.
--
-- The columns of features a plain job never uses leave `jobs` for tables keyed by the job's id,
-- each written only for the jobs that use the feature:
--
--   job_options        what the enqueuer chose beyond the defaults: retry policy, timeout, trace
--                      context, the job's throttle interval (and whether the job or its queue set it)
--   job_attempt_state  what attempts left behind: progress, checkpoint, the attempts that saved a
--                      new checkpoint, the attempts lost in a row
--   job_wait_targets   the latest hand-off (carrier, reference, deadline) and wait (signal,
--                      deadline), and the one under way (`active`) with its deadline, indexed
--
-- `extras` on the row says which of them holds a row for the job (1: job_options, 2:
-- job_attempt_state, 4: job_wait_targets), so a claim reads them only for the jobs that have one.
-- The indexes of hand-offs and waits (idx_jobs_handed_off, idx_jobs_waiting), which read `state`,
-- become one on job_wait_targets: a claim and an ending evaluate five partial indexes, not seven.
--
-- The side tables have no foreign key (each would lock the job's row, a write to it, whenever a
-- side row is written): only the store writes them, for a job it holds in the same transaction,
-- and the statement trigger that deletes a deleted job's history deletes its side rows too.
--
-- `jobs.queue` loses its foreign key: PostgreSQL checked it for every job inserted with a lookup
-- that locked the queue's row (FOR KEY SHARE), a write to one shared row per enqueue (measured with
-- pgbench, one client, commits not waited for: 6,300 inserts a second with it, 7,450 without). The
-- store creates a queue's row before it inserts the queue's jobs and never deletes one; a trigger
-- refuses to delete or rename a queue that has jobs, as the key did.
--
-- Every row is kept: a side row is written for each job with a value other than its default, and
-- the job's `extras` says so. The views keep their columns and values: they join the side tables.
-- Dropping the columns does not rewrite the table; the rows written from now on are narrower.

CREATE TABLE job_options (
    job_id                   bigint  NOT NULL PRIMARY KEY,
    timeout_ms               bigint  CHECK (timeout_ms IS NULL OR timeout_ms > 0),
    -- The throttle interval kept after this job and where it came from (its queue or the job).
    throttle_interval_ms     bigint  NOT NULL DEFAULT 0 CHECK (throttle_interval_ms >= 0),
    throttle_interval_source text    NOT NULL DEFAULT 'queue' CHECK (throttle_interval_source IN ('queue', 'job')),
    retry_policy             text,   -- JSON, read by the engine; NULL: the engine's default
    trace_context            text    -- the enqueuer's trace context, a JSON object
);

CREATE TABLE job_attempt_state (
    job_id              bigint  NOT NULL PRIMARY KEY,
    -- Attempts that saved a new checkpoint, and the attempt that saved the current one.
    progressed_attempts integer NOT NULL DEFAULT 0 CHECK (progressed_attempts >= 0),
    checkpoint_attempt  integer,
    -- Poison jobs: attempts in a row whose worker stopped without progress, and the last one.
    lost_in_a_row       integer NOT NULL DEFAULT 0 CHECK (lost_in_a_row >= 0),
    last_lost_attempt   integer,
    progress            double precision CHECK (progress IS NULL OR (progress >= 0 AND progress <= 1)),
    checkpoint          bytea   -- opaque bytes a handler saves to resume
);

CREATE TABLE job_wait_targets (
    job_id            bigint NOT NULL PRIMARY KEY,
    -- 'handed_off' or 'waiting' while the job is in that state for this row's hand-off or wait;
    -- NULL once it left it (the store clears it; a sweep clears any it finds out of date).
    active            text   CHECK (active IS NULL OR active IN ('handed_off', 'waiting')),
    -- The active hand-off's or wait's deadline (NULL: none), for idx_job_wait_targets_active.
    due_at            bigint,
    -- The job's latest hand-off: its carrier, what the carrier calls the transfer, its deadline.
    -- Kept after the job leaves 'handed_off', as a record.
    handoff_deadline  bigint,
    handed_off_to     text,
    handoff_reference text,
    -- The job's latest wait: the signal's name and when the wait times out. Kept as a record.
    wait_deadline     bigint,
    waiting_for       text
);

CREATE INDEX idx_job_wait_targets_active ON job_wait_targets (active, due_at) WHERE active IS NOT NULL;

INSERT INTO job_options (job_id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy, trace_context)
SELECT id, timeout_ms, throttle_interval_ms, throttle_interval_source, retry_policy, trace_context
FROM jobs
WHERE retry_policy IS NOT NULL OR timeout_ms IS NOT NULL OR trace_context IS NOT NULL OR throttle_interval_ms <> 0
   OR throttle_interval_source <> 'queue';

INSERT INTO job_attempt_state (job_id, progressed_attempts, checkpoint_attempt, lost_in_a_row, last_lost_attempt,
                               progress, checkpoint)
SELECT id, progressed_attempts, checkpoint_attempt, lost_in_a_row, last_lost_attempt, progress, checkpoint
FROM jobs
WHERE progressed_attempts <> 0 OR checkpoint_attempt IS NOT NULL OR lost_in_a_row <> 0
   OR last_lost_attempt IS NOT NULL OR progress IS NOT NULL OR checkpoint IS NOT NULL;

INSERT INTO job_wait_targets (job_id, active, due_at, handoff_deadline, handed_off_to, handoff_reference,
                              wait_deadline, waiting_for)
SELECT id, CASE WHEN state IN ('handed_off', 'waiting') THEN state END,
       CASE state WHEN 'handed_off' THEN handoff_deadline WHEN 'waiting' THEN wait_deadline END,
       handoff_deadline, handed_off_to, handoff_reference, wait_deadline, waiting_for
FROM jobs
WHERE handed_off_to IS NOT NULL OR waiting_for IS NOT NULL;

-- A column added with a constant default is not written into the rows: only the jobs with side
-- rows are updated.
ALTER TABLE jobs ADD COLUMN extras integer NOT NULL DEFAULT 0;
UPDATE jobs SET extras = (CASE WHEN EXISTS (SELECT 1 FROM job_options AS o WHERE o.job_id = jobs.id) THEN 1 ELSE 0 END)
                       | (CASE WHEN EXISTS (SELECT 1 FROM job_attempt_state AS a WHERE a.job_id = jobs.id) THEN 2 ELSE 0 END)
                       | (CASE WHEN EXISTS (SELECT 1 FROM job_wait_targets AS w WHERE w.job_id = jobs.id) THEN 4 ELSE 0 END)
WHERE id IN (SELECT job_id FROM job_options UNION SELECT job_id FROM job_attempt_state UNION SELECT job_id FROM job_wait_targets);

DROP VIEW job_list;
DROP VIEW job_handoffs;
DROP VIEW job_waits;

-- Also drops idx_jobs_handed_off and idx_jobs_waiting, and the columns' checks.
ALTER TABLE jobs DROP COLUMN retry_policy, DROP COLUMN timeout_ms, DROP COLUMN trace_context,
                 DROP COLUMN throttle_interval_ms, DROP COLUMN throttle_interval_source,
                 DROP COLUMN progressed_attempts, DROP COLUMN checkpoint_attempt, DROP COLUMN lost_in_a_row,
                 DROP COLUMN last_lost_attempt, DROP COLUMN progress, DROP COLUMN checkpoint,
                 DROP COLUMN handed_off_to, DROP COLUMN handoff_reference, DROP COLUMN handoff_deadline,
                 DROP COLUMN waiting_for, DROP COLUMN wait_deadline;

-- A deleted job's history and side rows go with it (this replaces version 23's function).
CREATE OR REPLACE FUNCTION durablequeue_delete_history() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    DELETE FROM job_events WHERE job_id IN (SELECT id FROM deleted_rows);
    DELETE FROM job_options WHERE job_id IN (SELECT id FROM deleted_rows WHERE extras & 1 <> 0);
    DELETE FROM job_attempt_state WHERE job_id IN (SELECT id FROM deleted_rows WHERE extras & 2 <> 0);
    DELETE FROM job_wait_targets WHERE job_id IN (SELECT id FROM deleted_rows WHERE extras & 4 <> 0);
    RETURN NULL;
END;
$$;

ALTER TABLE jobs DROP CONSTRAINT jobs_queue_fkey;

-- What the key refused: deleting or renaming a queue that jobs name.
CREATE FUNCTION durablequeue_keep_used_queues() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
    used text;
BEGIN
    IF TG_OP = 'DELETE' THEN
        SELECT j.queue INTO used FROM jobs AS j WHERE j.queue IN (SELECT name FROM deleted_queues) LIMIT 1;
    ELSE
        SELECT j.queue INTO used FROM jobs AS j WHERE j.queue = OLD.name LIMIT 1;
    END IF;
    IF used IS NOT NULL THEN
        RAISE EXCEPTION 'queue "%" has jobs', used USING ERRCODE = 'foreign_key_violation',
            HINT = 'delete its jobs first';
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER queues_deleted_keep_used AFTER DELETE ON queues
REFERENCING OLD TABLE AS deleted_queues FOR EACH STATEMENT EXECUTE FUNCTION durablequeue_keep_used_queues();
CREATE TRIGGER queues_renamed_keep_used AFTER UPDATE ON queues
FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name) EXECUTE FUNCTION durablequeue_keep_used_queues();

-- The same columns, the moved ones read from their tables.
CREATE VIEW job_list AS
SELECT j.id,
       j.queue,
       j.kind,
       j.version,
       j.state,
       CASE j.priority WHEN -8 THEN 'background' WHEN -4 THEN 'low' WHEN 0 THEN 'normal'
                       WHEN 4 THEN 'high' ELSE j.priority::text END                          AS priority,
       j.attempts,
       j.max_attempts,
       j.cancel_requested,
       j.unique_key,
       (SELECT string_agg(t.tag, ',' ORDER BY t.tag) FROM job_tags AS t WHERE t.job_id = j.id) AS tags,
       a.progress,
       coalesce(o.throttle_interval_ms, 0)                                                  AS throttle_interval_ms,
       coalesce(o.throttle_interval_source, 'queue')                                        AS throttle_interval_source,
       iso_time(j.run_at)                                                                   AS run_at,
       iso_time(j.created_at)                                                               AS created_at,
       iso_time(j.started_at)                                                               AS started_at,
       iso_time(j.finished_at)                                                              AS finished_at,
       j.lease_owner,
       iso_time(j.lease_expires_at)                                                         AS lease_expires_at,
       j.error ->> 'message'                                                                AS error_message,
       j.input,
       j.output
FROM jobs AS j
LEFT JOIN job_options AS o ON o.job_id = j.id
LEFT JOIN job_attempt_state AS a ON a.job_id = j.id;

CREATE VIEW job_handoffs AS
SELECT j.id,
       j.queue,
       j.kind,
       j.attempts                        AS attempt,
       w.handed_off_to,
       w.handoff_reference,
       iso_time(j.updated_at)            AS handed_off_at,
       iso_time(w.handoff_deadline)      AS deadline
FROM jobs AS j
JOIN job_wait_targets AS w ON w.job_id = j.id
WHERE j.state = 'handed_off';

CREATE VIEW job_waits AS
SELECT j.id,
       j.queue,
       j.kind,
       j.attempts                        AS attempt,
       w.waiting_for,
       iso_time(j.updated_at)            AS waiting_since,
       iso_time(w.wait_deadline)         AS deadline
FROM jobs AS j
JOIN job_wait_targets AS w ON w.job_id = j.id
WHERE j.state = 'waiting';

-- durablequeue_enqueue as version 21 wrote it, but for the row it inserts: a job's timeout or
-- throttle interval (its own or its queue's) goes into its job_options row.
CREATE OR REPLACE FUNCTION durablequeue_enqueue(kind text, input jsonb, options jsonb DEFAULT '{}', version integer DEFAULT 1)
RETURNS bigint LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
DECLARE
    job_kind text := durablequeue_enqueue.kind;
    job_input jsonb := durablequeue_enqueue.input;
    opts jsonb := coalesce(durablequeue_enqueue.options, '{}');
    job_version integer := durablequeue_enqueue.version;
    now bigint := now_ms();
    queue_name text;
    job_priority integer := 0;
    job_run_at bigint;
    job_max_attempts integer := 3;
    job_timeout bigint;
    job_unique_key text;
    job_policy text := 'keep';
    job_window bigint;
    job_partition text;
    job_tags text[] := '{}';
    job_throttle bigint;
    unknown text;
    queue_row record;
    holder record;
    fair_tag bigint;
    last_tag bigint;
    job_state text;
    new_id bigint;
    job_throttle_ms bigint;
    has_options boolean;
BEGIN
    -- The arguments, checked as NewJob.validate and EnqueueOptions check them.
    IF job_kind IS NULL OR job_kind = '' THEN
        RAISE EXCEPTION 'invalid kind: the job type name must not be empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF job_input IS NULL THEN
        RAISE EXCEPTION 'invalid input: must not be SQL NULL (JSON null is ''null''::jsonb)' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF job_version IS NULL OR job_version < 1 THEN
        RAISE EXCEPTION 'invalid version: % is not a version (1 or more)', coalesce(job_version::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF jsonb_typeof(opts) <> 'object' THEN
        RAISE EXCEPTION 'invalid options: must be a JSON object, not %', jsonb_typeof(opts) USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT string_agg(key, ', ' ORDER BY key) INTO unknown FROM jsonb_object_keys(opts) AS key
    WHERE key NOT IN ('queue', 'priority', 'run_at', 'delay', 'max_attempts', 'timeout', 'unique_key', 'unique_policy',
                      'unique_window', 'partition_key', 'tags', 'throttle_interval');
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'invalid options: unknown %', unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known: queue, priority, run_at, delay, max_attempts, timeout, unique_key, unique_policy, '
                         'unique_window, partition_key, tags, throttle_interval';
    END IF;

    queue_name := coalesce(opts ->> 'queue', 'default');
    IF queue_name = '' THEN
        RAISE EXCEPTION 'invalid queue: the name must not be empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF opts ? 'priority' THEN
        CASE jsonb_typeof(opts -> 'priority')
        WHEN 'number' THEN
            job_priority := (opts ->> 'priority')::integer;
        WHEN 'string' THEN
            job_priority := CASE opts ->> 'priority' WHEN 'background' THEN -8 WHEN 'low' THEN -4 WHEN 'normal' THEN 0
                                                     WHEN 'high' THEN 4 END;
            IF job_priority IS NULL THEN
                RAISE EXCEPTION 'invalid priority: ''%'' is none of background, low, normal, high', opts ->> 'priority'
                    USING ERRCODE = 'invalid_parameter_value';
            END IF;
        ELSE
            RAISE EXCEPTION 'invalid priority: an integer or a name' USING ERRCODE = 'invalid_parameter_value';
        END CASE;
    END IF;
    IF opts ? 'run_at' THEN
        job_run_at := (extract(epoch FROM (opts ->> 'run_at')::timestamptz) * 1000)::bigint;
    ELSIF opts ? 'delay' THEN
        job_run_at := (extract(epoch FROM (opts ->> 'delay')::interval) * 1000)::bigint;
        IF job_run_at < 0 THEN
            RAISE EXCEPTION 'invalid delay: % is negative', opts ->> 'delay' USING ERRCODE = 'invalid_parameter_value';
        END IF;
        job_run_at := now + job_run_at;
    END IF;
    IF opts ? 'max_attempts' THEN
        job_max_attempts := (opts ->> 'max_attempts')::integer;
        IF job_max_attempts < 1 THEN
            RAISE EXCEPTION 'invalid max_attempts: % is below 1; use null for unlimited', job_max_attempts
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    IF opts ? 'timeout' THEN
        job_timeout := (extract(epoch FROM (opts ->> 'timeout')::interval) * 1000)::bigint;
        IF job_timeout < 1 THEN
            RAISE EXCEPTION 'invalid timeout: % is not positive', opts ->> 'timeout' USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    job_unique_key := opts ->> 'unique_key';
    IF job_unique_key = '' THEN
        RAISE EXCEPTION 'invalid unique_key: must not be empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    job_policy := coalesce(opts ->> 'unique_policy', 'keep');
    IF job_policy NOT IN ('keep', 'debounce', 'replace', 'allow') THEN
        RAISE EXCEPTION 'invalid unique_policy: ''%'' is none of keep, debounce, replace, allow', job_policy
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF opts ? 'unique_window' THEN
        job_window := (extract(epoch FROM (opts ->> 'unique_window')::interval) * 1000)::bigint;
        IF job_window < 1 THEN
            RAISE EXCEPTION 'invalid unique_window: % is not positive', opts ->> 'unique_window'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF job_unique_key IS NULL OR job_policy <> 'keep' THEN
            RAISE EXCEPTION 'invalid unique_window: needs a unique key and the keep policy' USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    job_partition := opts ->> 'partition_key';
    IF job_partition = '' THEN
        RAISE EXCEPTION 'invalid partition_key: must not be empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF opts ? 'tags' THEN
        IF jsonb_typeof(opts -> 'tags') <> 'array' THEN
            RAISE EXCEPTION 'invalid tags: an array of text' USING ERRCODE = 'invalid_parameter_value';
        END IF;
        SELECT coalesce(array_agg(DISTINCT tag), '{}') INTO job_tags FROM jsonb_array_elements_text(opts -> 'tags') AS tag;
        IF '' = ANY (job_tags) THEN
            RAISE EXCEPTION 'invalid tags: a tag must not be empty' USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;
    IF opts ? 'throttle_interval' THEN
        job_throttle := (extract(epoch FROM (opts ->> 'throttle_interval')::interval) * 1000)::bigint;
        IF job_throttle < 0 THEN
            RAISE EXCEPTION 'invalid throttle_interval: % is negative', opts ->> 'throttle_interval'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
    END IF;

    INSERT INTO queues (name, created_at, updated_at) VALUES (queue_name, now, now) ON CONFLICT (name) DO NOTHING;

    LOOP
        -- The unique key (UniqueKeyRule): the job holding it is kept, debounced or replaced.
        IF job_unique_key IS NOT NULL AND job_policy <> 'allow' THEN
            SELECT id, state, attempts, group_id INTO holder FROM jobs
            WHERE unique_key = job_unique_key AND cancel_requested = 0
              AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
            FOR NO KEY UPDATE;
            IF FOUND THEN
                IF job_policy = 'keep' THEN
                    RETURN holder.id;
                ELSIF job_policy = 'debounce' THEN
                    IF holder.state IN ('scheduled', 'pending') THEN
                        job_state := CASE WHEN coalesce(job_run_at, now) > now THEN 'scheduled' ELSE 'pending' END;
                        UPDATE jobs SET input = job_input, run_at = coalesce(job_run_at, now), state = job_state, updated_at = now
                        WHERE id = holder.id;
                        INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
                        VALUES (holder.id, now, holder.state, job_state, holder.attempts,
                                'debounced: input replaced by a newer enqueue; runs '
                                || CASE WHEN coalesce(job_run_at, now) > now
                                        THEN 'in ' || CASE WHEN (job_run_at - now) % 1000 = 0 THEN ((job_run_at - now) / 1000) || 's'
                                                           ELSE (job_run_at - now) || 'ms' END
                                        ELSE 'now' END);
                    END IF;
                    RETURN holder.id;
                ELSIF holder.state = 'running' THEN
                    -- Replace (CancelRequest): a running job is asked to stop.
                    UPDATE jobs SET cancel_requested = 1, updated_at = now WHERE id = holder.id;
                    INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
                    VALUES (holder.id, now, 'running', 'running', holder.attempts, 'replaced by a job with the same unique key');
                ELSE
                    -- Replace: a waiting job is cancelled. Ending a group's member or a cached
                    -- computation moves its group or cache entry on: the Swift API does that.
                    IF holder.group_id IS NOT NULL OR EXISTS (SELECT 1 FROM cache_entries WHERE job_id = holder.id) THEN
                        RAISE EXCEPTION 'invalid unique_policy: replace of job %, which is part of a group or computes a cached value', holder.id
                            USING ERRCODE = 'invalid_parameter_value', HINT = 'replace it from the Swift API, or use keep or debounce';
                    END IF;
                    UPDATE jobs SET state = 'cancelled', cancel_requested = 1, finished_at = now, updated_at = now WHERE id = holder.id;
                    INSERT INTO job_events (job_id, at, from_state, to_state, attempt, reason)
                    VALUES (holder.id, now, holder.state, 'cancelled', holder.attempts, 'replaced by a job with the same unique key');
                END IF;
            ELSIF job_window IS NOT NULL THEN
                SELECT id INTO holder FROM jobs WHERE unique_key = job_unique_key AND created_at > now - job_window
                ORDER BY created_at DESC, id DESC LIMIT 1;
                IF FOUND THEN
                    RETURN holder.id;
                END IF;
            END IF;
        END IF;

        -- The order key: a fair queue's tag (FairOrder), else the id (minus the id when LIFO).
        SELECT mode, fairness, fair_time, throttle_interval_ms INTO queue_row FROM queues WHERE name = queue_name;
        fair_tag := NULL;
        IF queue_row.fairness = 'by_key' THEN
            SELECT k.last_tag INTO last_tag FROM partition_keys AS k
            WHERE k.queue = queue_name AND k.key = coalesce(job_partition, '') FOR UPDATE;
            fair_tag := greatest(queue_row.fair_time, coalesce(last_tag, queue_row.fair_time)) + 1000;
            INSERT INTO partition_keys (queue, key, last_tag) VALUES (queue_name, coalesce(job_partition, ''), fair_tag)
            ON CONFLICT (queue, key) DO UPDATE SET last_tag = excluded.last_tag;
        END IF;

        job_state := CASE WHEN coalesce(job_run_at, now) > now THEN 'scheduled' ELSE 'pending' END;
        new_id := nextval('jobs_id_seq');
        job_throttle_ms := coalesce(job_throttle, queue_row.throttle_interval_ms);
        has_options := job_timeout IS NOT NULL OR job_throttle IS NOT NULL OR job_throttle_ms <> 0;
        INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, unique_key, input,
                          created_at, updated_at, partition_key, created_state, version, extras)
        VALUES (new_id, queue_name, job_kind, job_state, job_priority,
                coalesce(fair_tag, CASE queue_row.mode WHEN 'lifo' THEN -new_id ELSE new_id END),
                coalesce(job_run_at, now), job_max_attempts,
                CASE WHEN job_policy = 'allow' THEN NULL ELSE job_unique_key END, job_input, now, now,
                job_partition, job_state, job_version, CASE WHEN has_options THEN 1 ELSE 0 END)
        ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND cancel_requested = 0
            AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
        DO NOTHING;
        -- Nothing inserted: another transaction took the key since the look-up, and has committed.
        EXIT WHEN FOUND;
    END LOOP;
    IF has_options THEN
        INSERT INTO job_options (job_id, timeout_ms, throttle_interval_ms, throttle_interval_source)
        VALUES (new_id, job_timeout, job_throttle_ms, CASE WHEN job_throttle IS NULL THEN 'queue' ELSE 'job' END);
    END IF;
    INSERT INTO job_tags (tag, job_id) SELECT unnest(job_tags), new_id;
    PERFORM pg_notify('durablequeue_' || lower(current_schema()), '');
    RETURN new_id;
END
$$;
