SELECT aq.jms_drop_orphaned_temporaries()
