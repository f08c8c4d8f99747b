-- Agents (IDAP users), their database users, queue and system privileges, transformations,
-- and Oracle's dictionary views. Privileges are recorded in the catalog AND enforced by
-- PostgreSQL: table grants on the queue tables plus row-level security per queue.
--
-- Privilege model of a queue table (aq.apply_queue_grants):
--   * the table owner (the schema owner) bypasses row-level security as owner;
--   * grantees of ENQUEUE on any queue of the table: SELECT, INSERT on the message table
--     (UPDATE too on TRANSACTIONAL grouping tables) and SELECT, INSERT on the recipients table;
--   * grantees of DEQUEUE: SELECT, UPDATE, DELETE on both tables;
--   * aq_enqueue_any / aq_dequeue_any: the same on every queue table, aq_administrator_role both;
--   * row-level security (policies aq_*_v2, not FORCEd) restricts every non-owner to rows of
--     the queues it may use: dequeuers see and change the rows of their queues (and may move
--     them to an exception queue of the table); enqueuers insert into their queues and see
--     (or, on grouping tables, update) only the rows their own transaction enqueued, which
--     the engine's INSERT ... RETURNING needs: ENQUEUE does not allow browsing.
-- The ACL of the message and recipients tables belongs to AQ: it is recomputed from
-- aq.queue_privileges on every grant and revoke (other grants on them are removed).

CREATE OR REPLACE FUNCTION aq.require_admin(p_what text) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT pg_has_role(current_user, 'aq_administrator_role', 'MEMBER')
     AND NOT coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false) THEN
    PERFORM aq.err(1031, format('insufficient privileges: %s needs AQ administrator rights (aq_administrator_role)',
                                p_what), '42501');
  END IF;
END $$;

-- ---------------------------------------------------------------------------------------
-- Agents

CREATE OR REPLACE FUNCTION aq.hash_agent_password(p_password text) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF p_password IS NULL THEN RETURN NULL; END IF;
  IF p_password = '' OR length(p_password) > 72 THEN
    -- bcrypt looks at 72 bytes at most: longer passwords would be silently truncated
    PERFORM aq.err(24031, 'invalid value, PASSWORD should be 1 to 72 characters', '22023');
  END IF;
  RETURN public.crypt(p_password, public.gen_salt('bf', 10));
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.create_aq_agent(
    agent_name text, certificate_location text DEFAULT NULL, enable_http boolean DEFAULT false,
    enable_smtp boolean DEFAULT false, enable_anyp boolean DEFAULT false, password text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  a text;
BEGIN
  PERFORM aq.require_admin('create_aq_agent');
  a := aq.agent_name(agent_name);
  IF a IS NULL THEN
    PERFORM aq.err(24031, 'invalid value, AGENT_NAME should be non-NULL', '22023');
  END IF;
  IF EXISTS (SELECT 1 FROM aq.agents x WHERE x.name = a) THEN
    PERFORM aq.err(24089, format('AQ agent %s already exists', a), '42710');
  END IF;
  INSERT INTO aq.agents (name, enable_http, enable_smtp, enable_anyp, certificate_location, password_hash)
  VALUES (a, coalesce(enable_http, false), coalesce(enable_smtp, false), coalesce(enable_anyp, false),
          certificate_location, aq.hash_agent_password(password));
END $$;

-- NULL arguments leave the attribute unchanged.
CREATE OR REPLACE PROCEDURE dbms_aqadm.alter_aq_agent(
    agent_name text, certificate_location text DEFAULT NULL, enable_http boolean DEFAULT NULL,
    enable_smtp boolean DEFAULT NULL, enable_anyp boolean DEFAULT NULL, password text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  a text;
BEGIN
  PERFORM aq.require_admin('alter_aq_agent');
  a := aq.agent_name(agent_name);
  UPDATE aq.agents x SET
    enable_http = coalesce(alter_aq_agent.enable_http, x.enable_http),
    enable_smtp = coalesce(alter_aq_agent.enable_smtp, x.enable_smtp),
    enable_anyp = coalesce(alter_aq_agent.enable_anyp, x.enable_anyp),
    certificate_location = coalesce(alter_aq_agent.certificate_location, x.certificate_location),
    password_hash = coalesce(aq.hash_agent_password(alter_aq_agent.password), x.password_hash)
  WHERE x.name = a;
  IF NOT FOUND THEN
    PERFORM aq.err(24088, format('AQ agent %s does not exist', coalesce(a, 'NULL')), '42704');
  END IF;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.drop_aq_agent(agent_name text)
LANGUAGE plpgsql AS $$
DECLARE
  a text;
BEGIN
  PERFORM aq.require_admin('drop_aq_agent');
  a := aq.agent_name(agent_name);
  DELETE FROM aq.agents x WHERE x.name = a;
  IF NOT FOUND THEN
    PERFORM aq.err(24088, format('AQ agent %s does not exist', coalesce(a, 'NULL')), '42704');
  END IF;
END $$;

-- Gateways cache successful password checks and the agents that name a certificate; any
-- change to the agents (a password, HTTP access, a certificate, a new or dropped agent)
-- tells them to forget, so the change holds from the next request.
CREATE OR REPLACE FUNCTION aq.agents_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('aq_agents', '');
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER agents_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON aq.agents
    FOR EACH STATEMENT EXECUTE FUNCTION aq.agents_changed();

-- Password check for the gateway (definer: agents are admin-only data). Returns only a
-- boolean, never the hash, and does one bcrypt comparison whether or not the agent exists
-- or has a password (a dummy hash of the same cost), so timing does not tell agents apart.
CREATE OR REPLACE FUNCTION aq.verify_agent_password(p_agent text, p_password text) RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  dummy constant text := '$2a$10$7SKd8eU3kXK129ZaVtJRoeCwXdku5Mnq5zUOCautwEg/GVLOC6ca6';
  h text;
  a text;
BEGIN
  IF p_agent IS NOT NULL AND p_agent ~ '^"[^"]+"$|^[A-Za-z_][A-Za-z0-9_$#.]{0,127}$' THEN
    a := aq.agent_name(p_agent);
    SELECT x.password_hash INTO h FROM aq.agents x WHERE x.name = a;
  END IF;
  IF h IS NULL THEN
    PERFORM public.crypt(coalesce(p_password, ''), dummy);
    RETURN false;
  END IF;
  RETURN p_password IS NOT NULL AND public.crypt(p_password, h) = h;
END $$;
REVOKE ALL ON FUNCTION aq.verify_agent_password(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.verify_agent_password(text, text) TO aq_administrator_role;

-- A database user named like a PostgreSQL identifier (unquoted: lower case); it must exist.
CREATE OR REPLACE FUNCTION aq.db_user_name(p_text text, p_what text, p_must_exist boolean) RETURNS name
LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[] := aq.parse_name(p_text, p_what);
BEGIN
  IF array_length(n, 1) <> 1 THEN
    PERFORM aq.err(25200, format('invalid value %s, %s should be a database user name',
                                 quote_literal(p_text), p_what), '22023');
  END IF;
  IF p_must_exist AND NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = n[1]) THEN
    PERFORM aq.err(1918, format('user %s does not exist', n[1]), '42704');
  END IF;
  RETURN n[1];
END $$;

CREATE OR REPLACE FUNCTION aq.role_name(p_text text) RETURNS name
LANGUAGE sql STABLE AS $$ SELECT aq.db_user_name(p_text, 'DB_USERNAME', true) $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.enable_db_access(agent_name text, db_username text)
LANGUAGE plpgsql AS $$
DECLARE
  a text;
  r name;
BEGIN
  PERFORM aq.require_admin('enable_db_access');
  a := aq.agent_name(agent_name);
  r := aq.role_name(db_username);
  IF NOT EXISTS (SELECT 1 FROM aq.agents x WHERE x.name = a) THEN
    PERFORM aq.err(24088, format('AQ agent %s does not exist', coalesce(a, 'NULL')), '42704');
  END IF;
  INSERT INTO aq.agent_db_access (agent_name, db_username) VALUES (a, r) ON CONFLICT DO NOTHING;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.disable_db_access(agent_name text, db_username text)
LANGUAGE plpgsql AS $$
DECLARE
  a text;
  r name;
BEGIN
  PERFORM aq.require_admin('disable_db_access');
  a := aq.agent_name(agent_name);
  r := aq.db_user_name(db_username, 'DB_USERNAME', false);   -- the role may be gone already
  DELETE FROM aq.agent_db_access x WHERE x.agent_name = a AND x.db_username = r;
  IF NOT FOUND THEN
    PERFORM aq.err(24093, format('AQ agent %s not granted privileges of database user %s', a, r), '42704');
  END IF;
END $$;

-- Oracle's AQ$INTERNET_USERS (and SYSTEM.AQ$INTERNET_USERS): R__41_internet_users.sql.

-- ---------------------------------------------------------------------------------------
-- Queue privileges, enforced on the tables.

-- Queues of a queue table a role may use with a privilege ('ENQUEUE' lists normal queues
-- only). The row-level security policies call it once per statement (as an InitPlan).
CREATE OR REPLACE FUNCTION aq.my_queues(p_table_id integer, p_priv text, p_role name) RETURNS name[]
LANGUAGE sql STABLE SECURITY INVOKER AS $$
  SELECT coalesce(array_agg(q.queue_name), '{}')
  FROM aq.queue_info q
  WHERE q.table_id = p_table_id
    AND (p_priv <> 'ENQUEUE' OR q.queue_type = 'NORMAL_QUEUE')
    AND aq.has_access_as(q, p_priv, p_role)
$$;

-- Exception queues of a queue table: where dequeuers' failed messages move.
CREATE OR REPLACE FUNCTION aq.exception_queues(p_table_id integer) RETURNS name[]
LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(q.queue_name), '{}') FROM aq.queues q
  WHERE q.queue_table_id = p_table_id AND q.queue_type = 'EXCEPTION_QUEUE'
$$;

-- The policies of one relation of a queue table: name, command, USING, WITH CHECK.
CREATE OR REPLACE FUNCTION aq.queue_policies(p_table_id integer, p_recipients boolean)
RETURNS TABLE (policy name, command text, using_expr text, check_expr text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  args jsonb := jsonb_build_object('table_id', p_table_id);
  deq text := aq.sql($e$q_name = ANY ((SELECT aq.my_queues({{table_id}}, 'DEQUEUE', current_user))::name[])$e$, args);
  enq text := aq.sql($e$q_name = ANY ((SELECT aq.my_queues({{table_id}}, 'ENQUEUE', current_user))::name[])$e$, args);
  mine text := aq.sql($e$(txn_group = (SELECT pg_current_xact_id_if_assigned()::text::bigint) AND {{enq}})$e$,
                      jsonb_build_object('enq', enq));
  -- messages that failed out of one's queues into an exception queue of the table
  moved text := aq.sql($e$(q_name = ANY ((SELECT aq.exception_queues({{table_id}}))::name[])
                           AND original_queue_name = ANY ((SELECT aq.my_queues({{table_id}}, 'DEQUEUE', current_user))::name[]))$e$,
                       args);
BEGIN
  RETURN QUERY VALUES
    ('aq_select_v2'::name, 'SELECT',
       CASE WHEN p_recipients THEN deq || ' OR ' || mine ELSE deq || ' OR ' || mine || ' OR ' || moved END,
       NULL::text),
    -- a dequeue writes the recipient row of a message it takes as an implicit recipient
    -- (R__12_audience)
    ('aq_insert_v3'::name, 'INSERT', NULL::text, CASE WHEN p_recipients THEN enq || ' OR ' || deq ELSE enq END),
    ('aq_update_v2'::name, 'UPDATE',
       CASE WHEN p_recipients THEN deq ELSE deq || ' OR ' || mine END,
       CASE WHEN p_recipients THEN deq ELSE deq || ' OR ' || mine || ' OR ' || moved END),
    ('aq_delete_v2'::name, 'DELETE', deq, NULL::text);
END $$;

-- A queue table's relations: its messages and, multi-consumer, their recipients; the same
-- for its buffered messages' companion (R__11_buffered) once it exists.
CREATE OR REPLACE FUNCTION aq.queue_table_relations(t aq.queue_tables) RETURNS name[]
LANGUAGE sql STABLE AS $$
  SELECT array_agg(x.rel ORDER BY x.i) FROM (
    SELECT 1 AS i, t.table_name AS rel
    UNION ALL SELECT 2, ('aq$_' || t.table_name || '_r')::name WHERE t.multiple_consumers
    UNION ALL SELECT 3, ('aq$_' || t.table_name || '_b')::name
    WHERE to_regclass(format('%I.%I', t.schema_name, 'aq$_' || t.table_name || '_b')) IS NOT NULL
    UNION ALL SELECT 4, ('aq$_aq$_' || t.table_name || '_b_r')::name
    WHERE t.multiple_consumers
      AND to_regclass(format('%I.%I', t.schema_name, 'aq$_aq$_' || t.table_name || '_b_r')) IS NOT NULL) x
$$;

-- Row-level security of a queue table's relations: enabled, with the current policies.
-- Creates them only when missing or outdated (that needs the table owner's rights).
CREATE OR REPLACE FUNCTION aq.ensure_queue_policies(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  rel name;
  c record;
  p record;
  names name[];
BEGIN
  FOREACH rel IN ARRAY aq.queue_table_relations(t) LOOP
    SELECT cl.oid, cl.relrowsecurity, cl.relowner INTO c
    FROM pg_class cl JOIN pg_namespace n ON n.oid = cl.relnamespace
    WHERE n.nspname = t.schema_name AND cl.relname = rel AND cl.relkind = 'r';
    IF NOT FOUND THEN
      PERFORM aq.err(24002, format('QUEUE_TABLE %s.%s does not exist', t.schema_name, rel), '42P01');
    END IF;
    names := ARRAY(SELECT x.policy FROM aq.queue_policies(t.id, rel IN (('aq$_' || t.table_name || '_r')::name, ('aq$_aq$_' || t.table_name || '_b_r')::name)) x);
    CONTINUE WHEN c.relrowsecurity
      AND (SELECT count(*) FROM pg_policy WHERE polrelid = c.oid AND polname = ANY (names)) = cardinality(names)
      AND NOT EXISTS (SELECT 1 FROM pg_policy WHERE polrelid = c.oid AND polname LIKE 'aq\_%'
                        AND polname <> ALL (names));
    IF NOT pg_has_role(current_user, c.relowner, 'USAGE') THEN
      PERFORM aq.err(1031, format('row-level security of queue table %s.%s is not set up: its owner must run aq.apply_queue_grants(%s)',
                                  t.schema_name, rel, t.id), '42501');
    END IF;
    EXECUTE aq.sql('ALTER TABLE {{schema:ident}}.{{table:ident}} ENABLE ROW LEVEL SECURITY',
                   jsonb_build_object('schema', t.schema_name, 'table', rel));
    FOR p IN SELECT polname FROM pg_policy WHERE polrelid = c.oid AND polname LIKE 'aq\_%' LOOP
      EXECUTE aq.sql('DROP POLICY {{policy:ident}} ON {{schema:ident}}.{{table:ident}}',
                     jsonb_build_object('policy', p.polname, 'schema', t.schema_name, 'table', rel));
    END LOOP;
    -- (command, using, check: aq.queue_policies's fixed text)
    FOR p IN SELECT * FROM aq.queue_policies(t.id, rel IN (('aq$_' || t.table_name || '_r')::name, ('aq$_aq$_' || t.table_name || '_b_r')::name)) LOOP
      EXECUTE aq.sql('CREATE POLICY {{policy:ident}} ON {{schema:ident}}.{{table:ident}} FOR {{command}}',
                     jsonb_build_object('policy', p.policy, 'schema', t.schema_name, 'table', rel, 'command', p.command))
           || CASE WHEN p.using_expr IS NULL THEN ''
                   ELSE aq.sql(' USING ({{using}})', jsonb_build_object('using', p.using_expr)) END
           || CASE WHEN p.check_expr IS NULL THEN ''
                   ELSE aq.sql(' WITH CHECK ({{check}})', jsonb_build_object('check', p.check_expr)) END;
    END LOOP;
  END LOOP;
END $$;

-- Reconciles the ACL of a queue table's relations with aq.queue_privileges (definer: a
-- grantee WITH GRANT OPTION or an AQ administrator need not own the table). Safe for
-- anybody to call: everything comes from the catalog, whose writes row-level security
-- restricts to the schema's managers, and it acts only on tables owned by the owner of
-- their schema as recorded in the catalog, only after their row-level security is set up,
-- and grants only the fixed privilege sets below.
CREATE OR REPLACE FUNCTION aq.sync_queue_acl(p_table_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  t aq.queue_tables;
  ns oid;
  owner_oid oid;
  rel record;
  x record;
  missing text;
BEGIN
  SELECT * INTO t FROM aq.queue_tables WHERE id = p_table_id;
  IF NOT FOUND THEN RETURN; END IF;
  SELECT n.oid INTO ns FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner
  WHERE n.nspname = t.schema_name AND r.rolname = t.owner;
  owner_oid := (SELECT oid FROM pg_roles WHERE rolname = t.owner);
  IF ns IS NULL THEN
    PERFORM aq.err(1031, format('queue table %s.%s: its schema is not owned by %s as the catalog says',
                                t.schema_name, t.table_name, t.owner), '42501');
  END IF;
  FOR rel IN
    SELECT c.oid, c.relname, c.relowner, c.relrowsecurity, c.relname IN (('aq$_' || t.table_name || '_r')::name, ('aq$_aq$_' || t.table_name || '_b_r')::name) AS recipients
    FROM pg_class c
    WHERE c.relnamespace = ns AND c.relkind = 'r' AND c.relname = ANY (aq.queue_table_relations(t))
  LOOP
    IF rel.relowner <> owner_oid OR NOT rel.relrowsecurity
       OR (SELECT count(*) FROM pg_policy WHERE polrelid = rel.oid
             AND polname IN (SELECT pq.policy FROM aq.queue_policies(t.id, rel.recipients) pq)) <> 4 THEN
      PERFORM aq.err(1031, format('queue table %s.%s: not owned by %s or without its row-level security',
                                  t.schema_name, rel.relname, t.owner), '42501');
    END IF;
    FOR x IN
      WITH want AS (
        SELECT r.oid AS grantee, pr.priv
        FROM (SELECT p.grantee AS role, bool_or(p.enqueue AND q.queue_type = 'NORMAL_QUEUE') AS enq,
                     bool_or(p.dequeue) AS deq
              FROM aq.queue_privileges p JOIN aq.queues q ON q.id = p.queue_id
              WHERE q.queue_table_id = t.id GROUP BY p.grantee
              UNION ALL VALUES ('aq_enqueue_any'::name, true, false), ('aq_dequeue_any', false, true),
                               ('aq_administrator_role', true, true)) g
        JOIN pg_roles r ON r.rolname = g.role
        CROSS JOIN LATERAL (
          SELECT 'SELECT' WHERE g.enq OR g.deq
          UNION SELECT 'INSERT' WHERE g.enq OR (g.deq AND rel.recipients)
          UNION SELECT 'UPDATE' WHERE g.deq OR (g.enq AND NOT rel.recipients AND t.message_grouping = 'TRANSACTIONAL')
          UNION SELECT 'DELETE' WHERE g.deq) pr(priv)
        WHERE r.oid <> rel.relowner),
      have AS (
        SELECT a.grantor, a.grantee, a.privilege_type AS priv
        FROM pg_class c, aclexplode(c.relacl) a
        WHERE c.oid = rel.oid AND a.grantee <> rel.relowner)
      SELECT 'REVOKE' AS op, h.grantor, h.grantee, h.priv FROM have h
      WHERE h.grantor <> rel.relowner OR NOT EXISTS (SELECT 1 FROM want w WHERE w.grantee = h.grantee AND w.priv = h.priv)
      UNION ALL
      SELECT 'GRANT', rel.relowner, w.grantee, w.priv FROM want w
      WHERE NOT EXISTS (SELECT 1 FROM have h WHERE h.grantee = w.grantee AND h.priv = w.priv
                          AND h.grantor = rel.relowner)
      ORDER BY 1 DESC
    LOOP
      IF x.priv NOT IN ('SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER') THEN
        CONTINUE;   -- privilege keywords come from this fixed list only
      END IF;
      IF x.op = 'REVOKE' THEN
        -- PostgreSQL 15 takes GRANTED BY only for the current user; the owner's own grants
        -- are revoked without it (a superuser's REVOKE acts as the owner's), so an
        -- administrator can revoke on a queue table a role owns
        -- (priv: a keyword of the list above; grantee: PUBLIC or a quoted role)
        EXECUTE aq.sql('REVOKE {{priv}} ON {{schema:ident}}.{{table:ident}} FROM {{grantee}}{{granted_by}} CASCADE',
                       jsonb_build_object('priv', x.priv, 'schema', t.schema_name, 'table', rel.relname,
                         'grantee', CASE WHEN x.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(x.grantee)) END,
                         'granted_by', CASE WHEN x.grantor = rel.relowner AND x.grantor <> (SELECT oid FROM pg_roles
                                                                                            WHERE rolname = current_user)
                                            THEN '' ELSE aq.sql(' GRANTED BY {{grantor:ident}}',
                                                                jsonb_build_object('grantor', pg_get_userbyid(x.grantor))) END));
      ELSE
        EXECUTE aq.sql('GRANT {{priv}} ON {{schema:ident}}.{{table:ident}} TO {{grantee:ident}}',
                       jsonb_build_object('priv', x.priv, 'schema', t.schema_name, 'table', rel.relname,
                                          'grantee', pg_get_userbyid(x.grantee)));
        IF NOT has_schema_privilege(x.grantee, ns, 'USAGE') THEN
          EXECUTE aq.sql('GRANT USAGE ON SCHEMA {{schema:ident}} TO {{grantee:ident}}',
                         jsonb_build_object('schema', t.schema_name, 'grantee', pg_get_userbyid(x.grantee)));
        END IF;
      END IF;
    END LOOP;
    -- GRANT only warns when its issuer may not grant: make sure it happened
    SELECT string_agg(DISTINCT p.grantee::text, ', ') INTO missing
    FROM aq.queue_privileges p JOIN aq.queues q ON q.id = p.queue_id
    WHERE q.queue_table_id = t.id AND (p.enqueue OR p.dequeue)
      AND EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = p.grantee)
      AND NOT has_table_privilege(p.grantee, rel.oid, 'SELECT');
    IF missing IS NOT NULL THEN
      PERFORM aq.err(1031, format('could not grant on %s.%s to %s: pgaq''s schema owner may not grant on it',
                                  t.schema_name, rel.relname, missing), '42501');
    END IF;
  END LOOP;
END $$;
GRANT EXECUTE ON FUNCTION aq.sync_queue_acl(integer) TO PUBLIC;

-- Called for new queue tables (aq.create_queue_table_objects) and by every grant/revoke.
CREATE OR REPLACE FUNCTION aq.apply_queue_grants(p_table_id integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables;
BEGIN
  SELECT * INTO t FROM aq.queue_tables WHERE id = p_table_id;
  IF NOT FOUND THEN RETURN; END IF;
  PERFORM aq.ensure_queue_policies(t);
  PERFORM aq.sync_queue_acl(t.id);
END $$;

CREATE OR REPLACE FUNCTION aq.privilege_flags(p_priv text) RETURNS boolean[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE upper(btrim(coalesce(p_priv, '')))
    WHEN 'ENQUEUE' THEN RETURN ARRAY[true, false];
    WHEN 'DEQUEUE' THEN RETURN ARRAY[false, true];
    WHEN 'ALL' THEN RETURN ARRAY[true, true];
    ELSE PERFORM aq.err(24100, format('invalid privilege %s: use ENQUEUE, DEQUEUE or ALL',
                                      quote_literal(left(coalesce(p_priv, 'NULL'), 40))), '22023');
  END CASE;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.grant_queue_privilege(
    privilege text, queue_name text, grantee text, grant_option boolean DEFAULT false)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  f boolean[] := aq.privilege_flags(privilege);
  q aq.queue_info := aq.resolve_queue(queue_name);
  r name := aq.db_user_name(grantee, 'GRANTEE', true);
BEGIN
  -- the schema's managers grant anything; a grantee WITH GRANT OPTION what it holds
  IF NOT aq.may_manage(q.schema_name) AND NOT EXISTS (
       SELECT 1 FROM aq.queue_privileges g
       WHERE g.queue_id = q.queue_id AND g.grant_option
         AND pg_has_role(current_user, g.grantee, 'MEMBER')
         AND (g.enqueue OR NOT f[1]) AND (g.dequeue OR NOT f[2])) THEN
    PERFORM aq.err(1031, format('insufficient privileges to grant %s on %s.%s', upper(btrim(privilege)),
                                q.schema_name, q.queue_name), '42501');
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
  r name := aq.db_user_name(grantee, 'GRANTEE', false);
  manager boolean := aq.may_manage(q.schema_name);
BEGIN
  -- the schema's managers revoke anything; other grantors what they granted
  UPDATE aq.queue_privileges p SET enqueue = p.enqueue AND NOT f[1], dequeue = p.dequeue AND NOT f[2]
  WHERE p.queue_id = q.queue_id AND p.grantee = r
    AND (manager OR pg_has_role(current_user, p.grantor, 'MEMBER'))
    AND ((f[1] AND p.enqueue) OR (f[2] AND p.dequeue));
  IF NOT FOUND THEN
    PERFORM aq.err(1927, format('cannot REVOKE privileges you did not grant: %s on %s.%s from %s',
                                upper(btrim(privilege)), q.schema_name, q.queue_name, r), '42704');
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
    ELSE PERFORM aq.err(24100, format('invalid system privilege %s: use ENQUEUE_ANY, DEQUEUE_ANY or MANAGE_ANY',
                                      quote_literal(left(coalesce(p_priv, 'NULL'), 40))), '22023');
  END CASE;
END $$;

-- System privileges are memberships of aq_enqueue_any / aq_dequeue_any /
-- aq_administrator_role, which hold the grants on every queue table.
CREATE OR REPLACE PROCEDURE dbms_aqadm.grant_system_privilege(
    privilege text, grantee text, admin_option boolean DEFAULT false)
LANGUAGE plpgsql AS $$
DECLARE
  role name := aq.system_role(privilege);
  r name := aq.db_user_name(grantee, 'GRANTEE', true);
BEGIN
  PERFORM aq.require_admin('grant_system_privilege');
  BEGIN
    EXECUTE aq.sql('GRANT {{role:ident}} TO {{grantee:ident}}', jsonb_build_object('role', role, 'grantee', r))
         || CASE WHEN coalesce(admin_option, false) THEN ' WITH ADMIN OPTION' ELSE '' END;
  EXCEPTION WHEN insufficient_privilege THEN
    PERFORM aq.err(1031, format('insufficient privileges to grant %s: needs ADMIN OPTION on %s',
                                upper(btrim(privilege)), role), '42501');
  END;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.revoke_system_privilege(privilege text, grantee text)
LANGUAGE plpgsql AS $$
DECLARE
  role name := aq.system_role(privilege);
  r name := aq.db_user_name(grantee, 'GRANTEE', true);
BEGIN
  PERFORM aq.require_admin('revoke_system_privilege');
  IF NOT EXISTS (SELECT 1 FROM pg_auth_members m
                 WHERE m.roleid = (SELECT oid FROM pg_roles WHERE rolname = role)
                   AND m.member = (SELECT oid FROM pg_roles WHERE rolname = r)) THEN
    PERFORM aq.err(1952, format('system privileges not granted to %s: %s', r, upper(btrim(privilege))), '42704');
  END IF;
  BEGIN
    EXECUTE aq.sql('REVOKE {{role:ident}} FROM {{grantee:ident}}', jsonb_build_object('role', role, 'grantee', r));
  EXCEPTION WHEN insufficient_privilege THEN
    PERFORM aq.err(1031, format('insufficient privileges to revoke %s: needs ADMIN OPTION on %s',
                                upper(btrim(privilege)), role), '42501');
  END;
END $$;

-- ---------------------------------------------------------------------------------------
-- Transformations: a SQL function from one payload type to another.

-- A type given as (schema, type), Oracle style: RAW or an object (composite or JMS) type.
CREATE OR REPLACE FUNCTION aq.transformation_type(p_schema text, p_type text, p_what text)
RETURNS regtype LANGUAGE plpgsql STABLE AS $$
DECLARE
  s text;
  n text[];
BEGIN
  IF upper(btrim(coalesce(p_type, ''))) IN ('RAW', 'SYS.RAW') THEN
    RETURN 'bytea'::regtype;
  END IF;
  IF nullif(btrim(p_schema), '') IS NOT NULL THEN
    s := (aq.db_user_name(p_schema, p_what || '_SCHEMA', false))::text;
    n := aq.parse_name(p_type, p_what);
    IF array_length(n, 1) = 2 AND n[1] <> s THEN
      PERFORM aq.err(25200, format('invalid value %s, %s should be a type name in schema %s',
                                   quote_literal(p_type), p_what, s), '22023');
    END IF;
    n := ARRAY[s, n[array_length(n, 1)]];
  ELSE
    n := aq.qualify(p_type, p_what);
  END IF;
  RETURN aq.resolve_payload_type(format('%I.%I', n[1], n[2]));
END $$;

-- The function of a transformation: [schema.]name, or Oracle's expression form
-- schema.name(source.user_data); one argument of p_from, returning p_to.
CREATE OR REPLACE FUNCTION aq.check_transformation_function(p_fn text, p_from regtype, p_to regtype)
RETURNS regproc LANGUAGE plpgsql STABLE AS $$
DECLARE
  fn text := coalesce(substring(p_fn FROM '(?i)^\s*(.+?)\s*\(\s*source\s*\.\s*user_data\s*\)\s*$'), p_fn);
  n text[] := aq.qualify(fn, 'TRANSFORMATION');
  f oid;
BEGIN
  SELECT p.oid INTO f FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace
  WHERE s.nspname = n[1] AND p.proname = n[2] AND p.pronargs = 1 AND p.prokind = 'f'
    AND p.proargtypes[0] = p_from AND p.prorettype = p_to AND NOT p.proretset AND p.provariadic = 0;
  IF f IS NULL THEN
    PERFORM aq.err(24184, format('transformation function %s.%s(%s) returning %s does not exist',
                                 n[1], n[2], p_from, p_to), '42883');
  END IF;
  IF NOT has_function_privilege(f, 'EXECUTE') THEN
    PERFORM aq.err(1031, format('insufficient privileges: EXECUTE on %s.%s', n[1], n[2]), '42501');
  END IF;
  RETURN f::regproc;
END $$;

CREATE OR REPLACE FUNCTION aq.transformation_key(p_schema text, p_name text) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  n text[] := aq.parse_name(p_name, 'NAME');
BEGIN
  IF array_length(n, 1) <> 1 THEN
    PERFORM aq.err(25200, format('invalid value %s, NAME should be a transformation name', quote_literal(p_name)), '22023');
  END IF;
  IF nullif(btrim(p_schema), '') IS NULL THEN
    RETURN aq.qualify(format('%I', n[1]), 'NAME');
  END IF;
  RETURN ARRAY[aq.db_user_name(p_schema, 'SCHEMA', false)::text, n[1]];
END $$;

CREATE OR REPLACE PROCEDURE dbms_transform.create_transformation(
    schema text, name text, from_schema text, from_type text, to_schema text, to_type text,
    transformation text)
LANGUAGE plpgsql AS $$
DECLARE
  k text[] := aq.transformation_key(schema, name);
  ft regtype;
  tt regtype;
  f regproc;
BEGIN
  IF NOT aq.may_manage(k[1]) THEN
    PERFORM aq.err(1031, format('insufficient privileges to create a transformation in schema %s', k[1]), '42501');
  END IF;
  ft := aq.transformation_type(from_schema, from_type, 'FROM_TYPE');
  tt := aq.transformation_type(to_schema, to_type, 'TO_TYPE');
  f := aq.check_transformation_function(transformation, ft, tt);
  IF EXISTS (SELECT 1 FROM aq.transformations x WHERE x.schema_name = k[1] AND x.name = k[2]) THEN
    PERFORM aq.err(24181, format('transformation %s.%s already exists', k[1], k[2]), '42710');
  END IF;
  INSERT INTO aq.transformations (schema_name, name, from_type, to_type, function_name)
  VALUES (k[1], k[2], ft, tt, f);
END $$;

CREATE OR REPLACE PROCEDURE dbms_transform.modify_transformation(
    schema text, name text, attribute_number integer DEFAULT 0, transformation text DEFAULT NULL)
LANGUAGE plpgsql AS $$
DECLARE
  k text[] := aq.transformation_key(schema, name);
  t aq.transformations := aq.resolve_transformation(format('%I.%I', k[1], k[2]));
BEGIN
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, 'insufficient privileges to modify the transformation', '42501');
  END IF;
  IF coalesce(attribute_number, 0) <> 0 THEN
    PERFORM aq.err(24031, 'invalid value, ATTRIBUTE_NUMBER should be 0: a transformation is one function', '22023');
  END IF;
  IF nullif(btrim(transformation), '') IS NULL THEN
    PERFORM aq.err(24031, 'invalid value, TRANSFORMATION should be non-NULL', '22023');
  END IF;
  UPDATE aq.transformations x
  SET function_name = aq.check_transformation_function(transformation, t.from_type, t.to_type)
  WHERE x.id = t.id;
END $$;

CREATE OR REPLACE PROCEDURE dbms_transform.drop_transformation(schema text, name text)
LANGUAGE plpgsql AS $$
DECLARE
  k text[] := aq.transformation_key(schema, name);
  t aq.transformations := aq.resolve_transformation(format('%I.%I', k[1], k[2]));
BEGIN
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, 'insufficient privileges to drop the transformation', '42501');
  END IF;
  DELETE FROM aq.transformations x WHERE x.id = t.id;
END $$;

-- ---------------------------------------------------------------------------------------
-- Dictionary views with Oracle's columns (security_invoker: they show what the caller may
-- read; the catalog itself is readable by everybody).
CREATE OR REPLACE VIEW aq.dba_queues WITH (security_invoker = true) AS
SELECT q.schema_name AS owner, q.queue_name AS name, t.table_name AS queue_table, q.id AS qid,
       q.queue_type, q.max_retries, q.retry_delay,
       CASE WHEN q.enqueue_enabled THEN 'YES' ELSE 'NO' END AS enqueue_enabled,
       CASE WHEN q.dequeue_enabled THEN 'YES' ELSE 'NO' END AS dequeue_enabled,
       CASE WHEN q.retention_time = -1 THEN 'FOREVER' ELSE q.retention_time::text END AS retention,
       q.comment AS user_comment, NULL::text AS network_name
FROM aq.queues q JOIN aq.queue_tables t ON t.id = q.queue_table_id;
CREATE OR REPLACE VIEW aq.all_queues WITH (security_invoker = true) AS
SELECT d.* FROM aq.dba_queues d JOIN aq.queue_info q ON q.queue_id = d.qid
WHERE aq.has_access(q, 'ENQUEUE') OR aq.has_access(q, 'DEQUEUE');
CREATE OR REPLACE VIEW aq.user_queues WITH (security_invoker = true) AS
SELECT d.name, d.queue_table, d.qid, d.queue_type, d.max_retries, d.retry_delay,
       d.enqueue_enabled, d.dequeue_enabled, d.retention, d.user_comment, d.network_name
FROM aq.dba_queues d JOIN aq.queue_tables t ON t.schema_name = d.owner AND t.table_name = d.queue_table
WHERE pg_has_role(current_user, t.owner, 'MEMBER');

CREATE OR REPLACE VIEW aq.dba_queue_tables WITH (security_invoker = true) AS
SELECT t.schema_name AS owner, t.table_name AS queue_table,
       CASE WHEN t.payload_kind = 'RAW' THEN 'RAW' ELSE 'OBJECT' END AS type,
       CASE WHEN t.payload_kind = 'RAW' THEN NULL
            ELSE (SELECT (n.nspname || '.' || ty.typname) COLLATE "default" FROM pg_type ty
                  JOIN pg_namespace n ON n.oid = ty.typnamespace WHERE ty.oid = t.payload_type) END AS object_type,
       t.sort_list AS sort_order,
       CASE WHEN t.multiple_consumers THEN 'MULTIPLE' ELSE 'SINGLE' END AS recipients,
       t.message_grouping, '10.0.0'::text AS compatible, t.comment AS user_comment
FROM aq.queue_tables t;
CREATE OR REPLACE VIEW aq.all_queue_tables WITH (security_invoker = true) AS
SELECT d.* FROM aq.dba_queue_tables d
WHERE EXISTS (SELECT 1 FROM aq.all_queues q WHERE q.owner = d.owner AND q.queue_table = d.queue_table)
   OR pg_has_role(current_user, (SELECT t.owner FROM aq.queue_tables t
                                 WHERE t.schema_name = d.owner AND t.table_name = d.queue_table), 'MEMBER');
CREATE OR REPLACE VIEW aq.user_queue_tables WITH (security_invoker = true) AS
SELECT d.queue_table, d.type, d.object_type, d.sort_order, d.recipients, d.message_grouping,
       d.compatible, d.user_comment
FROM aq.dba_queue_tables d JOIN aq.queue_tables t ON t.schema_name = d.owner AND t.table_name = d.queue_table
WHERE pg_has_role(current_user, t.owner, 'MEMBER');

-- Unqualified names for Oracle scripts (SELECT * FROM user_queues).
CREATE OR REPLACE VIEW public.dba_queues WITH (security_invoker = true) AS SELECT * FROM aq.dba_queues;
CREATE OR REPLACE VIEW public.all_queues WITH (security_invoker = true) AS SELECT * FROM aq.all_queues;
CREATE OR REPLACE VIEW public.user_queues WITH (security_invoker = true) AS SELECT * FROM aq.user_queues;
CREATE OR REPLACE VIEW public.dba_queue_tables WITH (security_invoker = true) AS SELECT * FROM aq.dba_queue_tables;
CREATE OR REPLACE VIEW public.all_queue_tables WITH (security_invoker = true) AS SELECT * FROM aq.all_queue_tables;
CREATE OR REPLACE VIEW public.user_queue_tables WITH (security_invoker = true) AS SELECT * FROM aq.user_queue_tables;
GRANT SELECT ON aq.dba_queues, aq.all_queues, aq.user_queues, aq.dba_queue_tables,
    aq.all_queue_tables, aq.user_queue_tables, public.dba_queues, public.all_queues,
    public.user_queues, public.dba_queue_tables, public.all_queue_tables,
    public.user_queue_tables TO PUBLIC;

-- Queue depths by message state, for /metrics: one GROUP BY per queue table the caller may
-- read (row-level security limits a grantee to its queues; tables it may not read are
-- skipped). Multi-consumer tables count messages, not recipients.
CREATE OR REPLACE FUNCTION aq.queue_depth_rows()
RETURNS TABLE (queue_schema name, queue_name name, state text, messages bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  t aq.queue_tables;
  rel regclass;
BEGIN
  FOR t IN SELECT * FROM aq.queue_tables ORDER BY id LOOP
    rel := to_regclass(format('%I.%I', t.schema_name, t.table_name));
    CONTINUE WHEN rel IS NULL OR NOT has_table_privilege(rel, 'SELECT');
    RETURN QUERY EXECUTE aq.sql(
      'SELECT {{schema:literal}}::name, m.q_name, aq.state_name(m.state), count(*) FROM {{schema:ident}}.{{table:ident}} m GROUP BY m.q_name, m.state',
      jsonb_build_object('schema', t.schema_name, 'table', t.table_name));
  END LOOP;
END $$;
CREATE OR REPLACE VIEW aq.queue_depths AS SELECT * FROM aq.queue_depth_rows();
GRANT SELECT ON aq.queue_depths TO PUBLIC;

-- Existing queue tables get the current policies and grants (a no-op when up to date).
SELECT aq.apply_queue_grants(id) FROM aq.queue_tables ORDER BY id;
