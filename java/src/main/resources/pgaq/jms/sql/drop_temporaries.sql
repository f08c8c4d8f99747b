SELECT aq.jms_drop_temporaries(?)
