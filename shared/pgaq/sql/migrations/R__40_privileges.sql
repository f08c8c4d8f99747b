-- Agents (IDAP users), their database users, queue and system privileges, transformations,
-- and Oracle's dictionary views. Privileges are recorded in the catalog AND enforced by
-- PostgreSQL: grants on the queue tables plus row-level security per queue.

CREATE OR REPLACE FUNCTION aq.require_admin(p_what text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT pg_has_role(current_user, 'aq_administrator_role', 'MEMBER')
     AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    PERFORM aq.err(1031, format('insufficient privileges: %s needs AQ administrator rights', p_what), '42501');
  END IF;
END $$;

-- ---------------------------------------------------------------------------------------
-- Agents
CREATE OR REPLACE PROCEDURE dbms_aqadm.create_aq_agent(
    agent_name text, certificate_location text DEFAULT NULL, enable_http boolean DEFAULT false,
    enable_smtp boolean DEFAULT false, enable_anyp boolean DEFAULT false, password text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  a text := aq.agent_name(agent_name);
BEGIN
  PERFORM aq.require_admin('create_aq_agent');
  IF a IS NULL THEN
    PERFORM aq.err(24031, 'invalid value, AGENT_NAME should be non-NULL', '22023');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.agents x WHERE x.name = a) THEN
    PERFORM aq.err(24089, format('AQ agent %s already exists', a), '42710');
  END IF;
  IF password IS NOT NULL AND length(password) < 1 THEN
    PERFORM aq.err(24031, 'invalid value, PASSWORD should be non-empty', '22023');
  END IF;
  INSERT INTO aq.agents (name, enable_http, enable_smtp, enable_anyp, certificate_location, password_hash)
  VALUES (a, coalesce(enable_http, false), coalesce(enable_smtp, false), coalesce(enable_anyp, false),
          certificate_location,
          CASE WHEN password IS NOT NULL THEN public.crypt(password, public.gen_salt('bf', 10)) END);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.alter_aq_agent(
    agent_name text, certificate_location text DEFAULT NULL, enable_http boolean DEFAULT NULL,
    enable_smtp boolean DEFAULT NULL, enable_anyp boolean DEFAULT NULL, password text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  a text := aq.agent_name(agent_name);
BEGIN
  PERFORM aq.require_admin('alter_aq_agent');
  UPDATE aq.agents x SET
    enable_http = coalesce(alter_aq_agent.enable_http, x.enable_http),
    enable_smtp = coalesce(alter_aq_agent.enable_smtp, x.enable_smtp),
    enable_anyp = coalesce(alter_aq_agent.enable_anyp, x.enable_anyp),
    certificate_location = coalesce(alter_aq_agent.certificate_location, x.certificate_location),
    password_hash = CASE WHEN alter_aq_agent.password IS NOT NULL
                         THEN public.crypt(alter_aq_agent.password, public.gen_salt('bf', 10))
                         ELSE x.password_hash END
  WHERE x.name = a;
  IF NOT FOUND THEN
    PERFORM aq.err(24088, format('AQ agent %s does not exist', coalesce(a, 'NULL')), '42704');
  END IF;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.drop_aq_agent(agent_name text)
LANGUAGE plpgsql AS $$
DECLARE
  a text := aq.agent_name(agent_name);
BEGIN
  PERFORM aq.require_admin('drop_aq_agent');
  DELETE FROM aq.agents x WHERE x.name = a;
  IF NOT FOUND THEN
    PERFORM aq.err(24088, format('AQ agent %s does not exist', coalesce(a, 'NULL')), '42704');
  END IF;
END $$;

-- Password check for the gateway: never reveals the hash, and takes the same time for
-- unknown agents (a dummy bcrypt comparison).
CREATE OR REPLACE FUNCTION aq.verify_agent_password(p_agent text, p_password text) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, aq AS $$
DECLARE
  h text;
  a text;
BEGIN
  BEGIN
    a := aq.agent_name(p_agent);
  EXCEPTION WHEN OTHERS THEN
    a := NULL;
  END;
  SELECT password_hash INTO h FROM aq.agents WHERE name = a;
  IF h IS NULL THEN
    PERFORM public.crypt(coalesce(p_password, ''), '$2a$10$abcdefghijklmnopqrstuu5Zp5VhJgFZUGn0Q3h7rPAWVNY4aMrhK');
    RETURN false;
  END IF;
  RETURN public.crypt(coalesce(p_password, ''), h) = h;
END $$;
REVOKE ALL ON FUNCTION aq.verify_agent_password(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.verify_agent_password(text, text) TO aq_administrator_role;

CREATE OR REPLACE FUNCTION aq.role_name(p_text text) RETURNS name
LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[] := aq.parse_name(p_text, 'DB_USERNAME');
BEGIN
  IF array_length(n, 1) <> 1 THEN
    PERFORM aq.err(25200, format('invalid value %s, DB_USERNAME should be a role name', quote_literal(p_text)), '22023');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = n[1]) THEN
    PERFORM aq.err(1918, format('user %s does not exist', n[1]), '42704');
  END IF;
  RETURN n[1];
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.enable_db_access(agent_name text, db_username text)
LANGUAGE plpgsql AS $$
DECLARE
  a text := aq.agent_name(agent_name);
  r name := aq.role_name(db_username);
BEGIN
  PERFORM aq.require_admin('enable_db_access');
  IF NOT EXISTS (SELECT 1 FROM aq.agents x WHERE x.name = a) THEN
    PERFORM aq.err(24088, format('AQ agent %s does not exist', coalesce(a, 'NULL')), '42704');
  END IF;
  INSERT INTO aq.agent_db_access (agent_name, db_username) VALUES (a, r) ON CONFLICT DO NOTHING;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.disable_db_access(agent_name text, db_username text)
LANGUAGE plpgsql AS $$
DECLARE
  a text := aq.agent_name(agent_name);
  r name := (aq.parse_name(db_username, 'DB_USERNAME'))[1];
BEGIN
  PERFORM aq.require_admin('disable_db_access');
  DELETE FROM aq.agent_db_access x WHERE x.agent_name = a AND x.db_username = r;
  IF NOT FOUND THEN
    PERFORM aq.err(24093, format('AQ agent %s not granted privileges of database user %s', a, r), '42704');
  END IF;
END $$;

CREATE OR REPLACE VIEW aq."aq$internet_users" AS
SELECT a.name AS agent_name, d.db_username,
       CASE WHEN a.enable_http THEN 'YES' ELSE 'NO' END AS http_enabled,
       CASE WHEN a.enable_smtp THEN 'YES' ELSE 'NO' END AS smtp_enabled,
       CASE WHEN a.enable_anyp THEN 'YES' ELSE 'NO' END AS ftp_enabled
FROM aq.agents a LEFT JOIN aq.agent_db_access d ON d.agent_name = a.name;
CREATE OR REPLACE VIEW public."aq$internet_users" AS SELECT * FROM aq."aq$internet_users";
GRANT SELECT ON aq."aq$internet_users", public."aq$internet_users" TO PUBLIC;

-- ---------------------------------------------------------------------------------------
-- Queue privileges, enforced on the tables.

-- Queues of a table the current role may use with a privilege (RLS policies use it).
CREATE OR REPLACE FUNCTION aq.my_queues(p_table_id integer, p_priv text, p_role name) RETURNS name[]
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  SELECT coalesce(array_agg(q.queue_name), '{}')
  FROM aq.queue_info q
  WHERE q.table_id = p_table_id
    AND aq.has_access_as(q, p_priv, p_role)
$$;

CREATE OR REPLACE FUNCTION aq.apply_queue_grants(p_table_id integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables;
  rt name;
  g record;
  tabs text;
BEGIN
  SELECT * INTO t FROM aq.queue_tables WHERE id = p_table_id;
  IF NOT FOUND THEN RETURN; END IF;
  rt := ('aq$_' || t.table_name || '_r')::name;
  tabs := format('%I.%I', t.schema_name, t.table_name)
          || CASE WHEN t.multiple_consumers THEN format(', %I.%I', t.schema_name, rt) ELSE '' END;
  -- start from nothing, then grant what the catalog says
  FOR g IN SELECT grantee FROM information_schema.role_table_grants
           WHERE table_schema = t.schema_name AND table_name IN (t.table_name, rt)
             AND grantee NOT IN (t.owner, 'PUBLIC') AND grantee NOT IN (SELECT rolname FROM pg_roles WHERE rolsuper)
           GROUP BY grantee LOOP
    EXECUTE format('REVOKE ALL ON %s FROM %I', tabs, g.grantee);
  END LOOP;
  FOR g IN
    SELECT p.grantee, bool_or(p.enqueue) AS enq, bool_or(p.dequeue) AS deq
    FROM aq.queue_privileges p JOIN aq.queues q ON q.id = p.queue_id
    WHERE q.queue_table_id = p_table_id AND EXISTS (SELECT 1 FROM pg_roles WHERE rolname = p.grantee)
    GROUP BY p.grantee
    UNION ALL SELECT 'aq_enqueue_any', true, false
    UNION ALL SELECT 'aq_dequeue_any', false, true
  LOOP
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %I', t.schema_name, g.grantee);
    EXECUTE format('GRANT USAGE ON TYPE %s TO %I', t.payload_type, g.grantee);
    IF g.enq THEN
      EXECUTE format('GRANT SELECT, INSERT, UPDATE ON %I.%I TO %I', t.schema_name, t.table_name, g.grantee);
      IF t.multiple_consumers THEN
        EXECUTE format('GRANT SELECT, INSERT ON %I.%I TO %I', t.schema_name, rt, g.grantee);
      END IF;
      EXECUTE format('GRANT EXECUTE ON FUNCTION %I.%I TO %I', t.schema_name, 'aq$_' || t.table_name || '_enq', g.grantee);
    END IF;
    IF g.deq THEN
      EXECUTE format('GRANT SELECT, UPDATE, DELETE ON %s TO %I', tabs, g.grantee);
      EXECUTE format('GRANT EXECUTE ON FUNCTION %I.%I TO %I', t.schema_name, 'aq$_' || t.table_name || '_deq', g.grantee);
    END IF;
  END LOOP;
  -- row-level security: a grantee sees and changes only rows of queues it may use
  EXECUTE format('ALTER TABLE %I.%I ENABLE ROW LEVEL SECURITY', t.schema_name, t.table_name);
  EXECUTE format('DROP POLICY IF EXISTS aq_read ON %I.%I', t.schema_name, t.table_name);
  EXECUTE format('DROP POLICY IF EXISTS aq_enqueue ON %I.%I', t.schema_name, t.table_name);
  EXECUTE format('DROP POLICY IF EXISTS aq_dequeue ON %I.%I', t.schema_name, t.table_name);
  EXECUTE format('DROP POLICY IF EXISTS aq_remove ON %I.%I', t.schema_name, t.table_name);
  EXECUTE format($p$CREATE POLICY aq_read ON %I.%I FOR SELECT USING (
      q_name = ANY (aq.my_queues(%s, 'DEQUEUE', current_user)) OR q_name = ANY (aq.my_queues(%s, 'ENQUEUE', current_user)))$p$,
    t.schema_name, t.table_name, t.id, t.id);
  EXECUTE format($p$CREATE POLICY aq_enqueue ON %I.%I FOR INSERT WITH CHECK (
      q_name = ANY (aq.my_queues(%s, 'ENQUEUE', current_user)))$p$, t.schema_name, t.table_name, t.id);
  EXECUTE format($p$CREATE POLICY aq_dequeue ON %I.%I FOR UPDATE USING (
      q_name = ANY (aq.my_queues(%s, 'DEQUEUE', current_user)) OR q_name = ANY (aq.my_queues(%s, 'ENQUEUE', current_user)))$p$,
    t.schema_name, t.table_name, t.id, t.id);
  EXECUTE format($p$CREATE POLICY aq_remove ON %I.%I FOR DELETE USING (
      q_name = ANY (aq.my_queues(%s, 'DEQUEUE', current_user)))$p$, t.schema_name, t.table_name, t.id);
  IF t.multiple_consumers THEN
    EXECUTE format('ALTER TABLE %I.%I ENABLE ROW LEVEL SECURITY', t.schema_name, rt);
    EXECUTE format('DROP POLICY IF EXISTS aq_read ON %I.%I', t.schema_name, rt);
    EXECUTE format('DROP POLICY IF EXISTS aq_enqueue ON %I.%I', t.schema_name, rt);
    EXECUTE format('DROP POLICY IF EXISTS aq_dequeue ON %I.%I', t.schema_name, rt);
    EXECUTE format('DROP POLICY IF EXISTS aq_remove ON %I.%I', t.schema_name, rt);
    EXECUTE format($p$CREATE POLICY aq_read ON %I.%I FOR SELECT USING (
        q_name = ANY (aq.my_queues(%s, 'DEQUEUE', current_user)) OR q_name = ANY (aq.my_queues(%s, 'ENQUEUE', current_user)))$p$,
      t.schema_name, rt, t.id, t.id);
    EXECUTE format($p$CREATE POLICY aq_enqueue ON %I.%I FOR INSERT WITH CHECK (
        q_name = ANY (aq.my_queues(%s, 'ENQUEUE', current_user)))$p$, t.schema_name, rt, t.id);
    EXECUTE format($p$CREATE POLICY aq_dequeue ON %I.%I FOR UPDATE USING (
        q_name = ANY (aq.my_queues(%s, 'DEQUEUE', current_user)))$p$, t.schema_name, rt, t.id);
    EXECUTE format($p$CREATE POLICY aq_remove ON %I.%I FOR DELETE USING (
        q_name = ANY (aq.my_queues(%s, 'DEQUEUE', current_user)))$p$, t.schema_name, rt, t.id);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION aq.privilege_flags(p_priv text) RETURNS boolean[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE upper(btrim(coalesce(p_priv, '')))
    WHEN 'ENQUEUE' THEN RETURN ARRAY[true, false];
    WHEN 'DEQUEUE' THEN RETURN ARRAY[false, true];
    WHEN 'ALL' THEN RETURN ARRAY[true, true];
    ELSE PERFORM aq.err(24100, format('invalid privilege %s: use ENQUEUE, DEQUEUE or ALL', quote_literal(left(p_priv, 40))), '22023');
  END CASE;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.grant_queue_privilege(
    privilege text, queue_name text, grantee text, grant_option boolean DEFAULT false)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  f boolean[] := aq.privilege_flags(privilege);
  q aq.queue_info := aq.resolve_queue(queue_name);
  r name := aq.role_name(grantee);
BEGIN
  IF NOT (aq.may_manage(q.schema_name) OR aq.has_grant_option(q.queue_id, current_user)) THEN
    PERFORM aq.err(1031, format('insufficient privileges to grant on %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
  INSERT INTO aq.queue_privileges (queue_id, grantee, enqueue, dequeue, grant_option)
  VALUES (q.queue_id, r, f[1], f[2], coalesce(grant_option, false))
  ON CONFLICT (queue_id, grantee) DO UPDATE SET
    enqueue = queue_privileges.enqueue OR EXCLUDED.enqueue,
    dequeue = queue_privileges.dequeue OR EXCLUDED.dequeue,
    grant_option = queue_privileges.grant_option OR EXCLUDED.grant_option;
  PERFORM aq.apply_queue_grants(q.table_id);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.revoke_queue_privilege(
    privilege text, queue_name text, grantee text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  f boolean[] := aq.privilege_flags(privilege);
  q aq.queue_info := aq.resolve_queue(queue_name);
  r name := (aq.parse_name(grantee, 'GRANTEE'))[1];
BEGIN
  IF NOT (aq.may_manage(q.schema_name) OR aq.has_grant_option(q.queue_id, current_user)) THEN
    PERFORM aq.err(1031, format('insufficient privileges to revoke on %s.%s', q.schema_name, q.queue_name), '42501');
  END IF;
  UPDATE aq.queue_privileges p SET enqueue = p.enqueue AND NOT f[1], dequeue = p.dequeue AND NOT f[2]
  WHERE p.queue_id = q.queue_id AND p.grantee = r;
  IF NOT FOUND THEN
    PERFORM aq.err(1927, format('cannot REVOKE privileges you did not grant: %s on %s.%s', r, q.schema_name, q.queue_name), '42704');
  END IF;
  DELETE FROM aq.queue_privileges p WHERE p.queue_id = q.queue_id AND p.grantee = r
    AND NOT p.enqueue AND NOT p.dequeue;
  PERFORM aq.apply_queue_grants(q.table_id);
END $$;

CREATE OR REPLACE FUNCTION aq.system_role(p_priv text) RETURNS name
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE upper(btrim(coalesce(p_priv, '')))
    WHEN 'ENQUEUE_ANY' THEN RETURN 'aq_enqueue_any';
    WHEN 'DEQUEUE_ANY' THEN RETURN 'aq_dequeue_any';
    WHEN 'MANAGE_ANY' THEN RETURN 'aq_administrator_role';
    ELSE PERFORM aq.err(24100, format('invalid system privilege %s: use ENQUEUE_ANY, DEQUEUE_ANY or MANAGE_ANY', quote_literal(left(p_priv, 40))), '22023');
  END CASE;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.grant_system_privilege(
    privilege text, grantee text, admin_option boolean DEFAULT false)
LANGUAGE plpgsql AS $$
DECLARE
  role name := aq.system_role(privilege);
  r name := aq.role_name(grantee);
BEGIN
  PERFORM aq.require_admin('grant_system_privilege');
  IF coalesce(admin_option, false) THEN
    EXECUTE format('GRANT %I TO %I WITH ADMIN OPTION', role, r);
  ELSE
    EXECUTE format('GRANT %I TO %I', role, r);
  END IF;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.revoke_system_privilege(privilege text, grantee text)
LANGUAGE plpgsql AS $$
DECLARE
  role name := aq.system_role(privilege);
  r name := aq.role_name(grantee);
BEGIN
  PERFORM aq.require_admin('revoke_system_privilege');
  EXECUTE format('REVOKE %I FROM %I', role, r);
END $$;

-- ---------------------------------------------------------------------------------------
-- Transformations: a SQL function from one payload type to another.
CREATE OR REPLACE FUNCTION aq.check_transformation_function(p_fn text, p_from regtype, p_to regtype)
RETURNS regproc LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[] := aq.qualify(p_fn, 'TRANSFORMATION');
  f oid;
BEGIN
  SELECT p.oid INTO f FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace
  WHERE s.nspname = n[1] AND p.proname = n[2] AND p.pronargs = 1
    AND p.proargtypes[0] = p_from AND p.prorettype = p_to AND p.prokind = 'f';
  IF f IS NULL THEN
    PERFORM aq.err(24184, format('transformation function %s.%s(%s) returning %s does not exist',
                                 n[1], n[2], p_from, p_to), '42883');
  END IF;
  RETURN f::regproc;
END $$;

CREATE OR REPLACE PROCEDURE dbms_transform.create_transformation(
    schema text, name text, from_schema text, from_type text, to_schema text, to_type text,
    transformation text)
LANGUAGE plpgsql AS $$
DECLARE
  s name := (aq.parse_name(schema, 'SCHEMA'))[1];
  n name := (aq.parse_name(name, 'NAME'))[1];
  ft regtype := aq.resolve_payload_type(CASE WHEN upper(from_type) = 'RAW' THEN 'RAW'
                                             ELSE coalesce(from_schema || '.', '') || from_type END);
  tt regtype := aq.resolve_payload_type(CASE WHEN upper(to_type) = 'RAW' THEN 'RAW'
                                             ELSE coalesce(to_schema || '.', '') || to_type END);
  f regproc := aq.check_transformation_function(transformation, ft, tt);
BEGIN
  IF NOT aq.may_manage(s) THEN
    PERFORM aq.err(1031, format('insufficient privileges to create a transformation in schema %s', s), '42501');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.transformations x WHERE x.schema_name = s AND x.name = n) THEN
    PERFORM aq.err(24181, format('transformation %s.%s already exists', s, n), '42710');
  END IF;
  INSERT INTO aq.transformations (schema_name, name, from_type, to_type, function_name)
  VALUES (s, n, ft, tt, f);
END $$;

CREATE OR REPLACE PROCEDURE dbms_transform.modify_transformation(
    schema text, name text, attribute_number integer DEFAULT 0, transformation text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  t aq.transformations := aq.resolve_transformation(schema || '.' || name);
BEGIN
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, 'insufficient privileges to modify the transformation', '42501');
  END IF;
  UPDATE aq.transformations x
  SET function_name = aq.check_transformation_function(transformation, t.from_type, t.to_type)
  WHERE x.id = t.id;
END $$;

CREATE OR REPLACE PROCEDURE dbms_transform.drop_transformation(schema text, name text)
LANGUAGE plpgsql AS $$
DECLARE
  t aq.transformations := aq.resolve_transformation(schema || '.' || name);
BEGIN
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, 'insufficient privileges to drop the transformation', '42501');
  END IF;
  DELETE FROM aq.transformations x WHERE x.id = t.id;
END $$;

-- ---------------------------------------------------------------------------------------
-- Dictionary views with Oracle's columns.
CREATE OR REPLACE VIEW aq.dba_queues AS
SELECT q.schema_name AS owner, q.queue_name AS name, t.table_name AS queue_table, q.id AS qid,
       q.queue_type, q.max_retries, q.retry_delay,
       CASE WHEN q.enqueue_enabled THEN 'YES' ELSE 'NO' END AS enqueue_enabled,
       CASE WHEN q.dequeue_enabled THEN 'YES' ELSE 'NO' END AS dequeue_enabled,
       CASE WHEN q.retention_time = -1 THEN 'FOREVER' ELSE q.retention_time::text END AS retention,
       q.comment AS user_comment, NULL::text AS network_name
FROM aq.queues q JOIN aq.queue_tables t ON t.id = q.queue_table_id;
CREATE OR REPLACE VIEW aq.all_queues AS
SELECT d.* FROM aq.dba_queues d JOIN aq.queue_info q ON q.queue_id = d.qid
WHERE aq.has_access(q, 'ENQUEUE') OR aq.has_access(q, 'DEQUEUE');
CREATE OR REPLACE VIEW aq.user_queues AS
SELECT d.name, d.queue_table, d.qid, d.queue_type, d.max_retries, d.retry_delay,
       d.enqueue_enabled, d.dequeue_enabled, d.retention, d.user_comment, d.network_name
FROM aq.dba_queues d JOIN aq.queue_tables t ON t.schema_name = d.owner AND t.table_name = d.queue_table
WHERE pg_has_role(current_user, t.owner, 'MEMBER');

CREATE OR REPLACE VIEW aq.dba_queue_tables AS
SELECT t.schema_name AS owner, t.table_name AS queue_table,
       CASE WHEN t.payload_kind = 'RAW' THEN 'RAW' WHEN t.payload_kind LIKE 'JMS%' THEN 'OBJECT'
            ELSE 'OBJECT' END AS type,
       CASE WHEN t.payload_kind = 'RAW' THEN NULL ELSE t.payload_type::text END AS object_type,
       t.sort_list AS sort_order,
       CASE WHEN t.multiple_consumers THEN 'MULTIPLE' ELSE 'SINGLE' END AS recipients,
       t.message_grouping, '10.0.0'::text AS compatible, t.comment AS user_comment
FROM aq.queue_tables t;
CREATE OR REPLACE VIEW aq.all_queue_tables AS
SELECT d.* FROM aq.dba_queue_tables d
WHERE EXISTS (SELECT 1 FROM aq.all_queues q WHERE q.owner = d.owner AND q.queue_table = d.queue_table)
   OR pg_has_role(current_user, (SELECT t.owner FROM aq.queue_tables t
                                 WHERE t.schema_name = d.owner AND t.table_name = d.queue_table), 'MEMBER');
CREATE OR REPLACE VIEW aq.user_queue_tables AS
SELECT d.queue_table, d.type, d.object_type, d.sort_order, d.recipients, d.message_grouping,
       d.compatible, d.user_comment
FROM aq.dba_queue_tables d JOIN aq.queue_tables t ON t.schema_name = d.owner AND t.table_name = d.queue_table
WHERE pg_has_role(current_user, t.owner, 'MEMBER');

CREATE OR REPLACE VIEW public.dba_queues AS SELECT * FROM aq.dba_queues;
CREATE OR REPLACE VIEW public.all_queues AS SELECT * FROM aq.all_queues;
CREATE OR REPLACE VIEW public.user_queues AS SELECT * FROM aq.user_queues;
CREATE OR REPLACE VIEW public.dba_queue_tables AS SELECT * FROM aq.dba_queue_tables;
CREATE OR REPLACE VIEW public.all_queue_tables AS SELECT * FROM aq.all_queue_tables;
CREATE OR REPLACE VIEW public.user_queue_tables AS SELECT * FROM aq.user_queue_tables;
GRANT SELECT ON aq.dba_queues, aq.all_queues, aq.user_queues, aq.dba_queue_tables,
    aq.all_queue_tables, aq.user_queue_tables, public.dba_queues, public.all_queues,
    public.user_queues, public.dba_queue_tables, public.all_queue_tables,
    public.user_queue_tables TO PUBLIC;

-- Queue depths by state, for /metrics.
CREATE OR REPLACE FUNCTION aq.queue_depth_rows()
RETURNS TABLE (queue_schema name, queue_name name, state text, messages bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t aq.queue_tables;
BEGIN
  FOR t IN SELECT * FROM aq.queue_tables ORDER BY id LOOP
    RETURN QUERY EXECUTE format(
      'SELECT %L::name, q_name, aq.state_name(state), count(*) FROM %I.%I GROUP BY q_name, state',
      t.schema_name, t.schema_name, t.table_name);
  END LOOP;
END $$;
CREATE OR REPLACE VIEW aq.queue_depths AS SELECT * FROM aq.queue_depth_rows();
GRANT SELECT ON aq.queue_depths TO PUBLIC;
