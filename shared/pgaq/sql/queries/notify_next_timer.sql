-- When there is something to do next: a pending notification's attempt, a lease running
-- out, a registration timing out. $1 skipped destinations
SELECT least(
  (SELECT min(due_at) FROM aq.notifications WHERE state = 'PENDING' AND dest_key <> ALL($1::text[])),
  (SELECT min(lease_until) FROM aq.notifications WHERE state = 'SENDING'),
  (SELECT min(expires_at) FROM aq.registrations WHERE expires_at IS NOT NULL))
