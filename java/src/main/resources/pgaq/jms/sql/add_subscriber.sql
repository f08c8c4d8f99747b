CALL dbms_aqadm.add_subscriber(queue_name => ?, subscriber => sys.aq$_agent(?, NULL, NULL),
                               rule => ?, delivery_mode => 'PERSISTENT_OR_BUFFERED')
