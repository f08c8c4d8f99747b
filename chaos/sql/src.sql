-- The source database: the Send queue, the topic and its three subscribers (local,
-- remote PostgreSQL through the proxy, HTTP to gateway B), the wake queue, notifications.
CREATE SCHEMA chaos;
CALL dbms_aqadm.create_queue_table('chaos.inq_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.inq', 'chaos.inq_t'); CALL dbms_aqadm.start_queue('chaos.inq');
CALL dbms_aqadm.create_queue_table('chaos.wake_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.wake', 'chaos.wake_t'); CALL dbms_aqadm.start_queue('chaos.wake');
CALL dbms_aqadm.create_queue_table('chaos.local_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.local_in', 'chaos.local_t'); CALL dbms_aqadm.start_queue('chaos.local_in');
CALL dbms_aqadm.create_queue_table('chaos.topic_t', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('chaos.topic', 'chaos.topic_t'); CALL dbms_aqadm.start_queue('chaos.topic');
CALL dbms_aqadm.add_subscriber('chaos.topic', sys.aq$_agent(NULL, 'chaos.local_in', 0));
CALL dbms_aqadm.add_subscriber('chaos.topic', sys.aq$_agent(NULL, 'chaos.remote_in@eu', 0));
CALL dbms_aqadm.add_subscriber('chaos.topic', sys.aq$_agent(NULL, 'chaos.web_in@web', 0));
CALL aq.allow_notification_host('127.0.0.1');
CALL dbms_aqelm.set_mailhost('127.0.0.1');
CALL dbms_aqelm.set_sendfrom('aq@example.com');
