-- On the callback login: the owner's trampoline calls the procedure. $1 runner, $2 id, $3 claimer
SELECT aq.invoke_callback($1::text, $2::uuid, $3::text)
