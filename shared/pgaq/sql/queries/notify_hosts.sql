-- The allow/deny list for http(s) notifications, read after each claim that holds some
-- (ordered, so the notifier sees a change by comparing two readings)
SELECT pattern, allow FROM aq.notification_hosts ORDER BY pattern
