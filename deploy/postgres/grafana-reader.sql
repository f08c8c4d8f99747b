-- The read-only role Grafana's datasource logs in as (deploy/grafana/provisioning/
-- datasources/pgaq.yaml) and the two functions it reads notification outcomes through.
-- Idempotent: the compose service `grafana-db` runs it at every start of the mesh, after
-- core has migrated the schema (grafana-reader.sh), as the database's owner (a superuser):
--
--   psql -v reader=pgaq_grafana -v password_file=/run/secrets/grafana_db_password -f grafana-reader.sql
--
-- The role reads what PUBLIC may read: aq_stats.* (the statistics job's tables),
-- aq.queue_snapshots, aq.dba_queue_schedules; every transaction is read-only and short.
-- aq.notifications shows a role only its own rows, so the notification panels go through
-- SECURITY DEFINER functions that return counts only (no payloads, addresses or errors).
-- They are SQL-language functions, whose bodies create no dependencies: a later migration
-- that changes aq.notifications is never blocked by them (rerunning this file re-checks them).

\set ON_ERROR_STOP on
\set password `cat :'password_file'`

SELECT format('CREATE ROLE %I', :'reader')
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'reader') \gexec
ALTER ROLE :"reader" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    CONNECTION LIMIT 20;
-- surrounding white space dropped, as Grafana's $__file{} drops it
SELECT format('ALTER ROLE %I PASSWORD %L', :'reader', btrim(:'password', E' \t\r\n')) \gexec
ALTER ROLE :"reader" SET default_transaction_read_only = on;
ALTER ROLE :"reader" SET statement_timeout = '30s';
\unset password

CREATE SCHEMA IF NOT EXISTS pgaq_grafana;
REVOKE ALL ON SCHEMA pgaq_grafana FROM PUBLIC;
GRANT USAGE ON SCHEMA pgaq_grafana TO :"reader";

-- Notifications per outcome and bucket: DELIVERED and FAILED by when they finished,
-- PENDING and SENDING by when they were created (as the built-in /dashboard counts them).
CREATE OR REPLACE FUNCTION pgaq_grafana.notification_outcomes(
    time_from timestamptz, time_to timestamptz, bucket interval)
RETURNS TABLE ("time" timestamptz, state text, notifications bigint)
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT date_bin(bucket, coalesce(n.finished_at, n.created_at), timestamptz '2000-01-01 00:00:00+00'),
         n.state, count(*)
    FROM aq.notifications n
   WHERE coalesce(n.finished_at, n.created_at) BETWEEN time_from AND time_to
   GROUP BY 1, 2
   ORDER BY 1, 2
$$;

-- The outbox now: notifications, attempts so far and the oldest due PENDING one, per state.
CREATE OR REPLACE FUNCTION pgaq_grafana.notification_states()
RETURNS TABLE (state text, notifications bigint, attempts bigint, oldest_pending_s double precision)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT n.state, count(*), coalesce(sum(n.attempts), 0)::bigint,
         extract(epoch FROM now() - min(n.due_at) FILTER (WHERE n.state = 'PENDING'))::float8
    FROM aq.notifications n
   GROUP BY n.state
   ORDER BY n.state
$$;

REVOKE ALL ON FUNCTION pgaq_grafana.notification_outcomes(timestamptz, timestamptz, interval),
                       pgaq_grafana.notification_states() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pgaq_grafana.notification_outcomes(timestamptz, timestamptz, interval),
                          pgaq_grafana.notification_states() TO :"reader";
