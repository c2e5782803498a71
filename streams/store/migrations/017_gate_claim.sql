-- The gate's claim (streams/store/gate.py claim_next) in one round trip. It must take the
-- tenant's lock before it reads who is in flight, and a single statement reads from a
-- snapshot taken before its lock is granted; a VOLATILE function's statements each take
-- a fresh snapshot, so the lock and the two claims below run as the three statements of
-- one transaction did, and the lock is held until the caller's transaction ends.
--
-- First, the claim this worker took while handling the same record before is taken back
-- (its output never committed, or the record would not be handled again). Else the
-- tenant's oldest queued episode is started, or a stale claim taken over in its arrival
-- place (counted as a retry), but only while no episode of the tenant holds a fresh claim.
CREATE OR REPLACE FUNCTION factstream_claim_next(
    p_dataset text, p_project_id text, p_claim_timeout_s float8, p_worker_id text,
    p_record text, p_token text
) RETURNS SETOF episodes LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    -- The gate's key (streams/store/locks.py gate_lock): 64 bits as two int4 keys.
    lock_key bigint := hashtextextended(p_dataset || ':' || p_project_id, 0);
    fresh timestamptz;
BEGIN
    PERFORM pg_advisory_xact_lock((lock_key >> 32)::int4, lock_key::bit(32)::int4);
    IF p_record IS NOT NULL THEN
        RETURN QUERY
            UPDATE episodes e SET claimed_at = now(), updated_at = now(), claim_token = p_token
            WHERE e.dataset = p_dataset AND e.project_id = p_project_id
              AND e.semantic_status = 'processing'
              AND e.claimed_by = p_worker_id AND e.claim_record = p_record
            RETURNING e.*;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    fresh := now() - make_interval(secs => p_claim_timeout_s);
    RETURN QUERY
        UPDATE episodes e SET semantic_status = 'processing', claimed_at = now(),
            claimed_by = p_worker_id, claim_event_id = e.event_id, claim_record = p_record,
            claim_token = p_token, newer_version_pending = false,
            semantic_retry_count = e.semantic_retry_count + (e.semantic_status = 'processing')::int,
            semantic_last_error = NULL, updated_at = now()
        FROM (
            SELECT n.episode_id FROM episodes n
            WHERE n.dataset = p_dataset AND n.project_id = p_project_id
              AND (n.semantic_status = 'queued' OR (n.semantic_status = 'processing'
                   AND (n.claimed_at IS NULL OR n.claimed_at < fresh)))
              AND NOT EXISTS (
                  SELECT 1 FROM episodes p WHERE p.dataset = p_dataset
                  AND p.project_id = p_project_id AND p.semantic_status = 'processing'
                  AND p.claimed_at >= fresh)
            ORDER BY n.arrival_seq LIMIT 1
        ) AS nxt
        WHERE e.dataset = p_dataset AND e.project_id = p_project_id
          AND e.episode_id = nxt.episode_id
          AND (e.semantic_status = 'queued' OR (e.semantic_status = 'processing'
               AND (e.claimed_at IS NULL OR e.claimed_at < fresh)))
        RETURNING e.*;
END
$$;
