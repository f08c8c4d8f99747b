-- The next window's start: next_time after the window that began at $2. $1 next_time
SELECT aq.eval_next_time($1, $2)
