-- Registrations whose timeout passed go, with a last notification each. $1 now
SELECT aq.expire_registrations($1)
