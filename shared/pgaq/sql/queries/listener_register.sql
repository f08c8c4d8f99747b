SELECT aq.register_waiter($1::integer)
