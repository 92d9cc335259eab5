-- The drain floor with grouped commits: claim the next 32 pending jobs in order (FOR UPDATE SKIP
-- LOCKED) and mark them running, committed; then mark those 32 done, committed. Two commits per
-- 32 jobs (the one-job floor of ../../../shared/bench/pg/floor/claim_done.sql commits twice per job).
WITH claimed AS (
    UPDATE jobs SET state = 1, attempts = attempts + 1, updated_at = now()
    WHERE id IN (SELECT id FROM jobs WHERE queue = 'default' AND state = 0
                 ORDER BY priority, run_at, id LIMIT 32 FOR UPDATE SKIP LOCKED)
    RETURNING id
)
SELECT coalesce(array_agg(id), '{}') AS claimed FROM claimed \gset
UPDATE jobs SET state = 2, updated_at = now() WHERE id = ANY (:claimed::bigint[]) AND state = 1;
