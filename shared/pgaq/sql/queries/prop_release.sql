-- A propagator stopping hands its schedules back at once. $1 propagator
UPDATE aq.schedules SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1
