-- A new window opens. $1 schedule, $2 propagator, $3 start, $4 end (NULL: endless)
UPDATE aq.schedules SET window_start = $3, window_end = $4, current_start_date = $3,
       windows = windows + 1, window_number = 0, window_bytes = 0
WHERE id = $1 AND lease_owner = $2
