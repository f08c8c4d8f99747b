-- Wait (bounded, in ms) for one noted transaction to end, then settle attempts
SELECT aq.await_attempts($1::text::xid8, $2::integer)
