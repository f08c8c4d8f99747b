-- $1 the topic ("owner.name"), $2 the subscriber: a closed non-durable subscriber's own
CALL dbms_aqadm.remove_subscriber(queue_name => $1, subscriber => sys.aq$_agent($2, NULL, NULL))
