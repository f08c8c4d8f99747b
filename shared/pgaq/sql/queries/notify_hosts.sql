-- The allow/deny list for http(s) notifications
SELECT pattern, allow FROM aq.notification_hosts
