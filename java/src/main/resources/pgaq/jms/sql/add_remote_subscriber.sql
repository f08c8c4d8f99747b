-- ? topic, ? agent name, ? agent address, ? agent protocol, ? rule: a remote subscriber
-- (its messages propagate to the address)
CALL dbms_aqadm.add_subscriber(queue_name => ?, subscriber => sys.aq$_agent(?, ?, ?), rule => ?)
