-- A callback that outlived its timeout and ignored the cancel. $1 backend pid
SELECT pg_terminate_backend($1::integer)
