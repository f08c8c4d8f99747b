-- Oracle's SYSTEM.AQ$INTERNET_USERS (Oracle Streams Advanced Queuing User's Guide and
-- Reference, Release 10.1, chapter 17 "Internet Access to Oracle Streams AQ", "Mapping the
-- Oracle Streams AQ Agent to Database Users", Table 17-7): the AQ agents, the protocols
-- each is enabled for, and the database users each maps to (ENABLE_DB_ACCESS); an agent
-- mapped to no user has one row with a NULL db_username.
--
-- Who sees what: AQ administrators (aq_administrator_role, and superusers) every row; any
-- other user the rows that map an agent to itself (or to a role it is a member of, whose
-- privileges it holds), so a user can tell which agents act as it and nothing about the
-- others. The view runs with its owner's rights (agents are admin-only under row-level
-- security) and filters by current_user itself; security_barrier keeps a caller's own
-- functions in WHERE from seeing the rows filtered out.
--
-- Names: Oracle scripts say SYSTEM.AQ$INTERNET_USERS or AQ$INTERNET_USERS unquoted, which
-- PostgreSQL folds to system."aq$internet_users" and "aq$internet_users" (found in public,
-- on the default search_path); aq."aq$internet_users" is the definition both read.

CREATE SCHEMA IF NOT EXISTS system;
GRANT USAGE ON SCHEMA system TO PUBLIC;

CREATE OR REPLACE VIEW aq."aq$internet_users"
    WITH (security_invoker = false, security_barrier = true) AS
SELECT a.name AS agent_name, d.db_username,
       CASE WHEN a.enable_http THEN 'YES' ELSE 'NO' END AS http_enabled,
       CASE WHEN a.enable_smtp THEN 'YES' ELSE 'NO' END AS smtp_enabled,
       CASE WHEN a.enable_anyp THEN 'YES' ELSE 'NO' END AS ftp_enabled
FROM aq.agents a LEFT JOIN aq.agent_db_access d ON d.agent_name = a.name
WHERE pg_catalog.pg_has_role(current_user, 'aq_administrator_role', 'MEMBER')
   -- the mapped role may have been dropped since (pg_has_role would raise for its name)
   OR EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
              WHERE r.rolname = d.db_username
                AND pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER'));

CREATE OR REPLACE VIEW public."aq$internet_users" WITH (security_invoker = true) AS
SELECT * FROM aq."aq$internet_users";
CREATE OR REPLACE VIEW system."aq$internet_users" WITH (security_invoker = true) AS
SELECT * FROM aq."aq$internet_users";
REVOKE ALL ON aq."aq$internet_users", public."aq$internet_users", system."aq$internet_users"
    FROM PUBLIC;
GRANT SELECT ON aq."aq$internet_users", public."aq$internet_users", system."aq$internet_users"
    TO PUBLIC;
