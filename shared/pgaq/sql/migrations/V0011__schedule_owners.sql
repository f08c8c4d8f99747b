-- Propagation schedules are written only through dbms_aqadm (which records the calling
-- role as the owner and checks its rights), and a SQL next_time runs with that owner's
-- rights only: as a SECURITY DEFINER function the owner owns, called through a guard
-- that itself has no rights, so the expression can neither read what its owner may not
-- nor switch roles (PostgreSQL refuses SET ROLE inside a security-definer call).

REVOKE INSERT, UPDATE, DELETE ON aq.schedules FROM PUBLIC;
REVOKE USAGE ON SEQUENCE aq.schedules_id_seq FROM PUBLIC;
-- the propagator's login (an AQ administrator when not a superuser) keeps the run state
GRANT UPDATE (window_start, window_end, next_run, aligned, failures, disabled, last_error_msg,
              last_error_date, last_run_date, current_start_date, total_time, total_number,
              total_bytes, max_number, max_bytes, windows, window_number, window_bytes,
              lease_owner, lease_until)
    ON aq.schedules TO aq_administrator_role;

-- one function per schedule whose next_time is an expression, owned by the schedule's owner
CREATE SCHEMA aq_next_time;
REVOKE ALL ON SCHEMA aq_next_time FROM PUBLIC;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aq_next_time_guard') THEN
    CREATE ROLE aq_next_time_guard NOLOGIN NOINHERIT;
  END IF;
END $$;
GRANT USAGE ON SCHEMA aq_next_time TO aq_next_time_guard;
