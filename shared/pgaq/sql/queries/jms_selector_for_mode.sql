-- $1 a JMS selector, $2 whether the client is in Java EE compliant mode: the selector as
-- the database evaluates it (R__52_jms_provider.sql)
SELECT aq.jms_selector_for_mode($1::text, $2::boolean)
