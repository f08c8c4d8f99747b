-- The next READY recipients for a schedule, locked. $1 schedule, $2 most
SELECT * FROM aq.propagation_batch($1, $2)
