-- DBMS_AQELM's SMTP settings
SELECT mailhost, mailport, sendfrom FROM aq.notification_settings
