-- What the IDAP gateway asks the database: which of an agent's database users may use a
-- queue, the alias directory, and registrations.

-- The first of the agent's database users (enable_db_access) that may use the queue with
-- the privilege; NULL when none may. Runs as its owner: agent mappings are admin-only data.
CREATE OR REPLACE FUNCTION aq.gateway_role_for(p_agent text, p_queue_id integer, p_priv text)
RETURNS name LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  SELECT d.db_username
  FROM aq.agent_db_access d, aq.queue_info q
  WHERE d.agent_name = p_agent AND q.queue_id = p_queue_id
    AND EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = d.db_username)
    AND aq.has_access_as(q, p_priv, d.db_username)
  ORDER BY d.db_username
  LIMIT 1
$$;
REVOKE ALL ON FUNCTION aq.gateway_role_for(text, integer, text) FROM PUBLIC;

-- Any database user of the agent (for operations that name no queue).
CREATE OR REPLACE FUNCTION aq.gateway_any_role(p_agent text)
RETURNS name LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  SELECT d.db_username FROM aq.agent_db_access d
  WHERE d.agent_name = p_agent AND EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = d.db_username)
  ORDER BY d.db_username LIMIT 1
$$;
REVOKE ALL ON FUNCTION aq.gateway_any_role(text) FROM PUBLIC;

-- The queue a destination names, through the alias directory when lookup_type is LDAP.
CREATE OR REPLACE FUNCTION aq.resolve_destination(p_name text, p_lookup text DEFAULT 'DATABASE')
RETURNS aq.queue_info LANGUAGE plpgsql STABLE AS $$
DECLARE
  d aq.directory;
BEGIN
  IF upper(coalesce(p_lookup, 'DATABASE')) = 'LDAP' THEN
    SELECT * INTO d FROM aq.directory WHERE alias = p_name AND queue_name IS NOT NULL;
    IF NOT FOUND THEN
      PERFORM aq.err(24010, format('no queue registered in the directory under alias %s', quote_literal(left(p_name, 100))), '42704');
    END IF;
    RETURN aq.resolve_queue(quote_ident(d.queue_schema) || '.' || quote_ident(d.queue_name));
  END IF;
  RETURN aq.resolve_queue(p_name);
END $$;

CREATE OR REPLACE FUNCTION aq.resolve_agent_alias(p_alias text) RETURNS sys.aq$_agent
LANGUAGE plpgsql STABLE AS $$
DECLARE
  a sys.aq$_agent;
BEGIN
  SELECT (d.agent).name, (d.agent).address, (d.agent).protocol INTO a
  FROM aq.directory d WHERE d.alias = p_alias AND d.queue_name IS NULL;
  IF NOT FOUND THEN
    PERFORM aq.err(24047, format('no agent registered in the directory under alias %s', quote_literal(left(p_alias, 100))), '42704');
  END IF;
  RETURN a;
END $$;

-- Oracle's DBMS_AQADM.ADD_ALIAS_TO_LDAP / DEL_ALIAS_FROM_LDAP, table-backed: obj_location
-- names a queue ([schema.]name).
CREATE OR REPLACE PROCEDURE dbms_aqadm.add_alias_to_ldap(alias text, obj_location text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  q aq.queue_info;
BEGIN
  -- the directory is the administrators' (row security): say so with a code, before
  -- telling whether the queue exists
  PERFORM aq.require_admin('add_alias_to_ldap');
  q := aq.resolve_queue(obj_location);
  IF alias IS NULL OR btrim(alias) = '' OR length(alias) > 256 THEN
    PERFORM aq.err(24031, 'invalid value, ALIAS should be non-NULL (at most 256 characters)', '22023');
  END IF;
  INSERT INTO aq.directory (alias, queue_schema, queue_name) VALUES (alias, q.schema_name, q.queue_name)
  ON CONFLICT (alias) DO UPDATE SET queue_schema = EXCLUDED.queue_schema,
    queue_name = EXCLUDED.queue_name, agent = NULL;
END $$;

-- Agent aliases (IDAP agent_alias): an extension with the same storage.
CREATE OR REPLACE PROCEDURE dbms_aqadm.add_agent_alias(alias text, agent sys.aq$_agent)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM aq.require_admin('add_agent_alias');
  IF alias IS NULL OR btrim(alias) = '' OR length(alias) > 256 THEN
    PERFORM aq.err(24031, 'invalid value, ALIAS should be non-NULL (at most 256 characters)', '22023');
  END IF;
  INSERT INTO aq.directory (alias, agent) VALUES (alias, aq.subscriber_key(agent))
  ON CONFLICT (alias) DO UPDATE SET agent = EXCLUDED.agent, queue_schema = NULL, queue_name = NULL;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.del_alias_from_ldap(alias text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  PERFORM aq.require_admin('del_alias_from_ldap');
  DELETE FROM aq.directory d WHERE d.alias = del_alias_from_ldap.alias;
  IF NOT FOUND THEN
    PERFORM aq.err(24047, format('alias %s is not in the directory', quote_literal(left(alias, 100))), '42704');
  END IF;
END $$;

-- AQXmlRegister: aq.register lives with the notifications (R__60_notifications.sql).
