-- The queues the run's clients use (ha/load.py), one per kind of client.
CREATE SCHEMA ha;
-- IDAP Send+Commit and Receive+Commit; kept a day after dequeue, so that a message whose
-- Receive answer was lost can still be told apart from a lost one
CALL dbms_aqadm.create_queue_table('ha.idap_t', 'RAW');
CALL dbms_aqadm.create_queue('ha.idap_q', 'ha.idap_t', retention_time => 86400);
CALL dbms_aqadm.start_queue('ha.idap_q');
-- pgaq.jms: a producer and a message listener
CALL dbms_aqadm.create_queue_table('ha.jms_t', 'SYS.AQ$_JMS_TEXT_MESSAGE');
CALL dbms_aqadm.create_queue('ha.jms_q', 'ha.jms_t');
CALL dbms_aqadm.start_queue('ha.jms_q');
-- the Java provider (pgaq-jms.jar): a producer and a message listener, in a JVM of its own
CALL dbms_aqadm.create_queue_table('ha.java_t', 'SYS.AQ$_JMS_TEXT_MESSAGE');
CALL dbms_aqadm.create_queue('ha.java_q', 'ha.java_t');
CALL dbms_aqadm.start_queue('ha.java_q');
-- a plain SQL client blocked in dbms_aq.dequeue
CALL dbms_aqadm.create_queue_table('ha.sql_t', 'RAW');
CALL dbms_aqadm.create_queue('ha.sql_q', 'ha.sql_t');
CALL dbms_aqadm.start_queue('ha.sql_q');
-- propagation: the topic's one subscriber is a local queue, moved by the propagator
CALL dbms_aqadm.create_queue_table('ha.topic_t', 'RAW', multiple_consumers => true);
CALL dbms_aqadm.create_queue('ha.topic', 'ha.topic_t');
CALL dbms_aqadm.start_queue('ha.topic');
CALL dbms_aqadm.create_queue_table('ha.prop_t', 'RAW');
CALL dbms_aqadm.create_queue('ha.prop_in', 'ha.prop_t');
CALL dbms_aqadm.start_queue('ha.prop_in');
CALL dbms_aqadm.add_subscriber('ha.topic', sys.aq$_agent(NULL, 'ha.prop_in', 0));
CALL dbms_aqadm.schedule_propagation('ha.topic', latency => 0);
-- HTTP notifications (registered by the run, to its sink); kept, to match each
-- notification to its message
CALL dbms_aqadm.create_queue_table('ha.note_t', 'RAW');
CALL dbms_aqadm.create_queue('ha.note_q', 'ha.note_t', retention_time => 86400);
CALL dbms_aqadm.start_queue('ha.note_q');
CALL aq.allow_notification_host('127.0.0.1');
-- what the SQL clients dequeued, committed in the dequeue's own transaction
CREATE TABLE ha_ledger (dest text NOT NULL, id text NOT NULL);
CALL dbms_aqadm.create_aq_agent(agent_name => 'HA', enable_http => true, password => 'ha-secret');
CALL dbms_aqadm.enable_db_access(agent_name => 'HA', db_username => 'postgres');
