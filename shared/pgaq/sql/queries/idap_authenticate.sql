-- Basic authentication: the agent exists, is enabled for HTTP (enable_http, or enable_anyp:
-- any protocol, as Oracle's create_aq_agent says), and the password matches.
-- CASE, not AND: aq.agent_name raises for a malformed name, and AND may evaluate it first.
SELECT CASE WHEN coalesce(aq.verify_agent_password($1::text, $2::text), false)
            THEN EXISTS (SELECT 1 FROM aq.agents a WHERE a.name = aq.agent_name($1::text) AND (a.enable_http OR a.enable_anyp))
            ELSE false END
