-- The JSON admin API: aq.admin_call validates the names against the catalog.
SELECT aq.admin_call($1::text, $2::jsonb)
