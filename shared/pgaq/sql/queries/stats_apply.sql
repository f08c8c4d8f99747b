-- $1 run, $2 low, $3 series_low, $4 high, $5 log rows, $6 history rows, $7 snapshot rows
SELECT aq_stats.apply_run($1, $2, $3, $4, $5, $6, $7)
