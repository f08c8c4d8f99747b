-- Basic authentication: the agent exists, is enabled for HTTP, and the password matches.
-- CASE, not AND: aq.agent_name raises for a malformed name, and AND may evaluate it first.
SELECT CASE WHEN coalesce(aq.verify_agent_password($1::text, $2::text), false)
            THEN EXISTS (SELECT 1 FROM aq.agents a WHERE a.name = aq.agent_name($1::text) AND a.enable_http)
            ELSE false END
