-- On the callback login, in the procedure's transaction after the call: delivered exactly
-- once with it. $1 notification id, $2 claimer, $3 now
SELECT aq.plsql_delivered($1::uuid, $2::text, $3::timestamptz)
