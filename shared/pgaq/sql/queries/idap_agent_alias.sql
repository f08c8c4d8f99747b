SELECT (a).name, (a).address, (a).protocol FROM (SELECT aq.resolve_agent_alias($1::text) AS a) x
