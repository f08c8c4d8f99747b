SELECT aq.jms_temporary_lease()
