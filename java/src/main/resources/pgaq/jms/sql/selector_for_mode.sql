-- ? a JMS selector, ? Java EE compliant mode: the selector as the database evaluates it
SELECT aq.jms_selector_for_mode(?, ?)
