SELECT aq.gateway_any_role($1::text)
