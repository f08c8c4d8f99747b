-- Wait (bounded, in ms) for the transaction holding a due message row to end
SELECT aq.await_row_lock($1::name, $2::name, $3::bytea, $4::integer)
