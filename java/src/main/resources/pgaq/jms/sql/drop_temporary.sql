SELECT aq.jms_drop_temporary(?, ?)
