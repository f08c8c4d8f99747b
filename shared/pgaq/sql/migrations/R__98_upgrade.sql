-- What upgrading a database of an earlier release needs, in one place: what it removes (old
-- signatures, an old compiler) and what it keeps for old callers (wrappers), each with the
-- release it is for. "release 435be0f": a database of that release (the previous release,
-- PREVIOUS in tests/integration/previous_release.py) has what the item removes or calls
-- what it keeps, so it goes once the previous release is a later one; "no release": only a
-- database of a commit between two releases has it, so it may go now.
--
-- This file runs after the other repeatable files (before R__99_regenerate): by then the
-- current forms exist, and until then the previous release's functions, still in place while
-- the files run one transaction each, find what they call (tests/integration/test_upgrade.py,
-- every step). A drop that must run in the transaction that creates the replacement (same
-- arguments with another result, or a new form whose defaults would make a call ambiguous
-- with the old one) stays just before that CREATE, marked `-- upgrade (stays here ...)`;
-- so do the steps the code generators run per queue table (drop_if_renamed in
-- R__13_codegen.sql, the unnamed _due in R__30_monitor.sql, the audience column in
-- R__12_queue_tables.sql). `grep -n "upgrade (stays here" R__*.sql` lists them.
-- (aq.listen_first(agents) and aq.record_failed_attempts(queue, consumer, ids) are older
-- forms too, but plain SQL calls them: they stay beside their functions, for good.)
-- tests/integration/test_migration_schema.py checks that an upgrade from the previous
-- release leaves the schema of a fresh install: what a release stops defining goes here.

-- removes aq.sys_agent(name, address, protocol), never called (sys.aq$_agent is the constructor); release 435be0f
DROP FUNCTION IF EXISTS aq.sys_agent(text, text, integer);

-- removes the 2-argument aq.payload_input_expr (now p_payloads, p_raw); release 435be0f
DROP FUNCTION IF EXISTS aq.payload_input_expr(aq.queue_info, aq.transformations);

-- removes the 2-argument aq.enqueue_sql (now p_args, R__16_enqueue.sql says why without a default); release 435be0f
DROP FUNCTION IF EXISTS aq.enqueue_sql(aq.queue_info, aq.transformations);

-- removes the 8-argument aq.dequeue_sql (now p_args); release 435be0f
DROP FUNCTION IF EXISTS aq.dequeue_sql(aq.queue_info, text, boolean, boolean, text, text, text[], boolean);

-- removes aq.next_due_sql(t) (now p_after: the _due function's parameter or $1); release 435be0f
DROP FUNCTION IF EXISTS aq.next_due_sql(aq.queue_tables);

-- removes the 11-argument aq.immediate_dequeue (now p_delivery_mode); release 435be0f
DROP FUNCTION IF EXISTS aq.immediate_dequeue(text, text, text, text, bytea, text, text, bigint[], boolean, text, bigint);

-- removes aq.listen_delivery_mode(q, mode) (now of a listen target's number); no release
DROP FUNCTION IF EXISTS aq.listen_delivery_mode(aq.queue_info, text);

-- removes aq.listen without p_listen_mode (its first form); no release
DROP PROCEDURE IF EXISTS aq.listen(sys.aq$_agent[], integer, sys.aq$_agent, text);

-- removes aq.dequeued_properties(d) (now p_mode, the delivery mode); no release
DROP FUNCTION IF EXISTS aq.dequeued_properties(aq.dequeued);

-- removes aq.eval_next_time(expr, at) (the owner's aq_next_time.s<id> functions replaced it); no release
DROP FUNCTION IF EXISTS aq.eval_next_time(text, timestamptz);

-- removes the condition compiler's aq._cond_* functions and types from before its split into
-- R__20_conditions_*.sql (without CASCADE: what still depends on one keeps it); release 435be0f
DO $$
DECLARE fn regprocedure; type_name text;
BEGIN
  FOR fn IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.pronamespace = 'aq'::regnamespace AND p.proname LIKE '\_cond\_%'
             ORDER BY p.proname, p.oid LOOP
    BEGIN
      EXECUTE format('DROP FUNCTION %s', fn);
    EXCEPTION WHEN dependent_objects_still_exist THEN
      RAISE WARNING 'pre-split condition compiler function % kept: %', fn, SQLERRM;
    END;
  END LOOP;
  FOREACH type_name IN ARRAY ARRAY['aq._cond_tok', 'aq._cond_pr', 'aq._cond_cr'] LOOP
    CONTINUE WHEN to_regtype(type_name) IS NULL;
    BEGIN
      EXECUTE format('DROP TYPE %s', type_name);
    EXCEPTION WHEN dependent_objects_still_exist THEN
      RAISE WARNING 'pre-split condition compiler type % kept: %', type_name, SQLERRM;
    END;
  END LOOP;
END $$;

-- gives schedules from before owners' next_time functions (V0011) theirs; no release
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT s.id, s.next_time, s.owner, q.schema_name FROM aq.schedules s JOIN aq.queues q ON q.id = s.queue_id
           WHERE s.next_time IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM pg_proc p WHERE p.pronamespace = 'aq_next_time'::regnamespace AND p.proname = 's' || s.id)
  LOOP
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r.owner) THEN
      PERFORM aq.define_next_time(r.id, r.next_time, r.owner, r.schema_name);
    END IF;
  END LOOP;
END $$;

-- keeps aq.after_position_expr(.., integer) ($n by number) for the previous release's
-- fast_path and dequeue_array, in place until the files that replace them run; release 435be0f
CREATE OR REPLACE FUNCTION aq.after_position_expr(p_sort text, p_alias text, p_param integer)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT aq.after_position_expr(p_sort, p_alias, '$' || p_param)
$$;

-- keeps aq.defer_settlement(queue, ids), the form before buffered messages; no release
CREATE OR REPLACE FUNCTION aq.defer_settlement(p_queue_id integer, p_ids bytea[]) RETURNS void
LANGUAGE sql AS $$ SELECT aq.defer_settlement(p_queue_id, p_ids, false) $$;
