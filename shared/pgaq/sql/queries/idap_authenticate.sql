-- Basic authentication: the agent exists, is enabled for HTTP, and the password matches
SELECT coalesce(aq.verify_agent_password($1::text, $2::text), false)
   AND EXISTS (SELECT 1 FROM aq.agents a WHERE a.name = aq.agent_name($1::text) AND a.enable_http)
