-- The next window's start after the window that began at $2 (read-only; an expression
-- runs as the schedule's owner). $1 schedule
SELECT aq.next_window_start($1, $2)
