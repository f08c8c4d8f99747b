CALL dbms_aqadm.alter_subscriber(queue_name => ?, subscriber => sys.aq$_agent(?, NULL, NULL), rule => ?)
