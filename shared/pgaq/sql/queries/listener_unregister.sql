SELECT aq.unregister_waiter($1::integer)
