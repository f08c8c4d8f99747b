-- The one-statement REMOVE (aq.fast_remove_sql) for a session acting as role $3, in
-- autocommit: the owner's function checks the acting role, which it reads from the `role`
-- setting made here first (the argument is evaluated before the call; PostgreSQL lets the
-- caller take only a role it may SET, and set_config(..., true) ends with the statement's
-- own transaction)
SELECT * FROM {fn}(CASE WHEN set_config('role', $3::text, true) IS NOT NULL THEN $1::name END,
                   $2::bigint[])
