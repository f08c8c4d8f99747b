SELECT aq.waiter_writers($1::integer, $2::text[])
