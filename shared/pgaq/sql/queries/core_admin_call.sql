SELECT aq.admin_call($1::text, $2::jsonb)
