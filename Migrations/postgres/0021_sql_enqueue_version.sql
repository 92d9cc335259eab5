-- DurableQueue PostgreSQL schema, version 21: durablequeue_enqueue takes the job's version, so
-- that SQL can enqueue a job of any version of its kind (`Job.version`); a worker claims it only if
-- it runs that version (migration 19). The version is the fourth argument and defaults to 1, so
-- every call written for version 14's function means what it meant:
--
--   SELECT durablequeue_enqueue('send-mail', '{"to": "a@example.com"}', '{}', 2);
--   SELECT durablequeue_enqueue('send-mail', '{"to": "a@example.com"}', version => 2);
--
-- A version below 1 raises SQLSTATE 22023 (invalid_parameter_value). The function is otherwise
-- version 14's (its options, checks and rows), but for the lock on a job holding the unique key,
-- now FOR NO KEY UPDATE as the store's own (a foreign-key check never waits for it). No row changes.
DROP FUNCTION durablequeue_enqueue(text, jsonb, jsonb);

CREATE FUNCTION durablequeue_enqueue(kind text, input jsonb, options jsonb DEFAULT '{}', version integer DEFAULT 1)
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
        new_id := nextval(pg_get_serial_sequence('jobs', 'id'));
        INSERT INTO jobs (id, queue, kind, state, priority, order_key, run_at, max_attempts, timeout_ms, unique_key, input,
                          created_at, updated_at, throttle_interval_ms, throttle_interval_source, partition_key, created_state,
                          version)
        VALUES (new_id, queue_name, job_kind, job_state, job_priority,
                coalesce(fair_tag, CASE queue_row.mode WHEN 'lifo' THEN -new_id ELSE new_id END),
                coalesce(job_run_at, now), job_max_attempts, job_timeout,
                CASE WHEN job_policy = 'allow' THEN NULL ELSE job_unique_key END, job_input, now, now,
                coalesce(job_throttle, queue_row.throttle_interval_ms),
                CASE WHEN job_throttle IS NULL THEN 'queue' ELSE 'job' END, job_partition, job_state, job_version)
        ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND cancel_requested = 0
            AND state IN ('scheduled', 'pending', 'blocked', 'running', 'handed_off', 'waiting')
        DO NOTHING;
        -- Nothing inserted: another transaction took the key since the look-up, and has committed.
        EXIT WHEN FOUND;
    END LOOP;
    INSERT INTO job_tags (tag, job_id) SELECT unnest(job_tags), new_id;
    PERFORM pg_notify('durablequeue_' || lower(current_schema()), '');
    RETURN new_id;
END
$$;
