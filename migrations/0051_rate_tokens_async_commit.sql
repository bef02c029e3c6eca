-- A charge of the rate limit commits without waiting for its WAL to reach
-- the disk (synchronous_commit off for its own transaction only: the
-- setting is local, so it must be called on its own, as
-- internal/ratelimit does, never inside a transaction that writes
-- anything else). The API charges nearly every request so under the
-- spec's limit, and waiting for that flush cost each write a second
-- commit's wait beside its own. The limit is exact while PostgreSQL runs;
-- a crash of the server may forget the charges of its last fraction of a
-- second (at most three wal_writer_delay), which only lets those clients
-- make as many requests again: nothing else depends on the bucket.
CREATE OR REPLACE FUNCTION ppwr_take_rate_tokens(p_bucket text, p_interval_us bigint, p_want integer,
                                                 OUT granted integer, OUT wait_seconds double precision)
LANGUAGE plpgsql AS $$
DECLARE
    now_t   timestamptz := clock_timestamp();
    step    interval := p_interval_us * interval '1 microsecond';
    burst   integer := greatest(1, (60000000 / p_interval_us)::integer);
    new_tat timestamptz;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO rate_limit_buckets AS b (bucket, tat, granted)
    VALUES (p_bucket, now_t + least(p_want, burst) * step, least(p_want, burst))
    ON CONFLICT (bucket) DO UPDATE SET
        granted = least(p_want, greatest(0, floor(extract(epoch FROM now_t + interval '1 minute' - greatest(b.tat, now_t)) * 1e6 / p_interval_us)))::integer,
        tat = greatest(b.tat, now_t)
              + least(p_want, greatest(0, floor(extract(epoch FROM now_t + interval '1 minute' - greatest(b.tat, now_t)) * 1e6 / p_interval_us)))::integer * step
    RETURNING b.granted, b.tat INTO granted, new_tat;
    wait_seconds := CASE WHEN granted > 0 THEN 0
                         ELSE extract(epoch FROM new_tat + step - interval '1 minute' - now_t) END;
END
$$;
