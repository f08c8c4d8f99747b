-- Autonomous work for SQL callers. PostgreSQL has no autonomous transactions, so a second
-- session of the same database (dblink, opened once per session, committed at once)
-- does what must survive the caller's ROLLBACK: noting a dequeue attempt (R__80) and
-- IMMEDIATE visibility of dbms_aq.enqueue/dequeue (R__19). The link is a session of the
-- functions' owner; the work itself runs there under SET LOCAL ROLE of the caller, so
-- the caller's own privileges decide, and every value travels as a quoted literal.

CREATE OR REPLACE FUNCTION aq.dblink_schema() RETURNS name
LANGUAGE sql STABLE AS $$
  SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
  WHERE e.extname = 'dblink'
$$;

-- The role that called: SET ROLE's, else the session's (current_user is the definer here).
CREATE OR REPLACE FUNCTION aq.caller_role() RETURNS name
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN current_setting('role') IN ('', 'none') THEN session_user
              ELSE current_setting('role') END::name
$$;

-- Opens the link if needed; returns dblink's schema, NULL without dblink. Raises when the
-- link cannot be opened (callers decide whether that is fatal).
CREATE OR REPLACE FUNCTION aq.autonomous_link() RETURNS name
LANGUAGE plpgsql AS $$
DECLARE
  ext name := aq.dblink_schema();
  sockets text := btrim(split_part(current_setting('unix_socket_directories'), ',', 1));
  open boolean;
BEGIN
  IF ext IS NULL THEN
    RETURN NULL;
  END IF;
  EXECUTE aq.render_autonomous_is_open(jsonb_build_object('dblink', ext)) INTO open;
  IF NOT open THEN
    EXECUTE aq.sql('SELECT {{dblink:ident}}.dblink_connect(''aq_attempts'', {{connection:literal}})',
                   jsonb_build_object('dblink', ext, 'connection',
                     'dbname=' || aq.conn_value(current_database()) || ' user=' || aq.conn_value(current_user)
                     || ' port=' || current_setting('port')
                     || CASE WHEN sockets <> '' THEN ' host=' || aq.conn_value(sockets) ELSE '' END
                     || ' application_name=' || aq.conn_value('pgaq autonomous')));
  END IF;
  RETURN ext;
END $$;
REVOKE ALL ON FUNCTION aq.autonomous_link() FROM PUBLIC;

-- IMMEDIATE always goes through the link. A CALL in autocommit is its own transaction
-- already, but from inside a procedure a caller's transaction block cannot be told apart
-- (transaction and statement start times differ or match either way under the extended
-- and the simple protocol), so without dblink IMMEDIATE is refused rather than silently
-- joining the caller's transaction.
CREATE OR REPLACE FUNCTION aq.immediate_needs_link() RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF aq.dblink_schema() IS NULL THEN
    PERFORM aq.err(25236, 'IMMEDIATE visibility from SQL needs the dblink extension (an autonomous '
                          'transaction), which is not installed; use ON_COMMIT', '0A000');
  END IF;
  RETURN true;
END $$;

-- Runs one query on the link as the caller, in its own transaction; returns its one text
-- column (NULL when no row). Errors of the remote session are raised here unchanged
-- (their ORA number and SQLSTATE). A lock the caller's own transaction holds would make
-- the link wait for ever (the two sessions are one client): lock_timeout bounds it.
CREATE OR REPLACE FUNCTION aq.autonomous_fetch(p_query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  ext name;
  res text;
BEGIN
  BEGIN
    ext := aq.autonomous_link();
  EXCEPTION WHEN OTHERS THEN
    PERFORM aq.err(25236, format('IMMEDIATE visibility needs an autonomous session, which could not be opened: %s',
                                 SQLERRM), '0A000');
  END;
  -- as the caller: its role, and its application_name (which a JMS message enqueued there
  -- records as its JMSXAppID without one of its own, R__52, as it would on the caller's)
  -- (query: the caller's statement, made by the engine from fixed text and quoted values)
  EXECUTE aq.render_autonomous_fetch(jsonb_build_object('dblink', ext, 'statement',
    aq.render_autonomous_as_caller(jsonb_build_object(
      'role', aq.caller_role(), 'application_name', coalesce(current_setting('application_name', true), ''),
      'lock_timeout', coalesce(nullif(current_setting('pgaq.autonomous_lock_timeout', true), ''), '10s'),
      'query', p_query))))
    INTO res;
  RETURN res;
EXCEPTION WHEN lock_not_available THEN
  PERFORM aq.err(25236, 'IMMEDIATE operation waited for a lock held by the calling transaction '
                        '(use ON_COMMIT for work on rows this transaction holds)', '55P03');
END $$;
REVOKE ALL ON FUNCTION aq.autonomous_fetch(text) FROM PUBLIC;

-- IMMEDIATE enqueue: the arguments of aq.enqueue_array, names already resolved.
CREATE OR REPLACE FUNCTION aq.immediate_enqueue(p_queue text, p_props jsonb, p_payloads jsonb,
                                                p_raw bytea[], p_transformation text)
RETURNS bytea[] LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
BEGIN
  RETURN aq.autonomous_fetch(aq.render_autonomous_enqueue(jsonb_build_object(
    'queue', p_queue, 'props', p_props::text, 'payloads', p_payloads::text, 'raw', p_raw::text,
    'transformation', p_transformation)))::bytea[];
END $$;

-- IMMEDIATE dequeue of one message: the arguments of aq.dequeue_array.
CREATE OR REPLACE FUNCTION aq.immediate_dequeue(p_queue text, p_consumer text, p_mode text, p_navigation text,
                                                p_msgid bytea, p_correlation text, p_condition text,
                                                p_position bigint[], p_wrap boolean, p_transformation text,
                                                p_group bigint, p_delivery_mode text)
RETURNS aq.dequeued LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
BEGIN
  RETURN aq.autonomous_fetch(aq.render_autonomous_dequeue(jsonb_build_object(
    'queue', p_queue, 'consumer', p_consumer, 'mode', p_mode, 'navigation', p_navigation, 'msgid', p_msgid::text,
    'correlation', p_correlation, 'condition', p_condition, 'position', p_position::text, 'wrap', p_wrap::text,
    'transformation', p_transformation, 'group', p_group::text, 'delivery_mode', p_delivery_mode)))::aq.dequeued;
END $$;

-- The link is a session of a privileged role: nobody else may reach it by its name.
DO $do$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN SELECT p.oid::regprocedure FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
           JOIN pg_proc p ON p.oid = d.objid
           WHERE e.extname = 'dblink' AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e' LOOP
    -- (function: its signature as regprocedure gives it, quoted)
    EXECUTE aq.sql('REVOKE EXECUTE ON FUNCTION {{function}} FROM PUBLIC', jsonb_build_object('function', f::text));
  END LOOP;
END $do$;
