CALL dbms_aqadm.remove_subscriber(queue_name => ?, subscriber => sys.aq$_agent(?, ?, ?))
