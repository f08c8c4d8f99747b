-- When there is something to do next: a notification's next attempt (the earliest still
-- ahead: due ones were just claimed, or belong to busy destinations that wake us when they
-- have room), a lease running out, a registration timing out. $1 now
SELECT (SELECT min(due_at) FROM aq.notifications WHERE state = 'PENDING' AND due_at > $1::timestamptz)
         AS next_due,
       (SELECT min(lease_until) FROM aq.notifications WHERE state = 'SENDING') AS next_lease,
       (SELECT min(expires_at) FROM aq.registrations WHERE expires_at IS NOT NULL) AS next_expiry
