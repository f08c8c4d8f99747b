SELECT aq.agent_name($1::text)
