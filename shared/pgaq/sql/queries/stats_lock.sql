-- One statistics run at a time (a session lock, held by the job's control connection).
SELECT pg_try_advisory_lock(1885827441, 1)
