-- The trampoline of a registration's owner (made or remade when needed). $1 owner
SELECT aq.callback_runner($1::name)
