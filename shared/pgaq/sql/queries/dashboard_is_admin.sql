-- /dashboard: may the agent $1 see it? Some database user it is mapped to
-- (enable_db_access) is a member of aq_administrator_role (superusers are members of all).
SELECT EXISTS (
  SELECT 1
    FROM aq.agent_db_access d
    JOIN pg_roles r ON r.rolname = d.db_username
   WHERE d.agent_name = aq.agent_name($1::text)
     AND pg_has_role(r.oid, 'aq_administrator_role', 'MEMBER'))
