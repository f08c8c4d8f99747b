-- The remote database: the two final destinations the topic propagates to.
CREATE SCHEMA chaos;
CALL dbms_aqadm.create_queue_table('chaos.remote_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.remote_in', 'chaos.remote_t'); CALL dbms_aqadm.start_queue('chaos.remote_in');
CALL dbms_aqadm.create_queue_table('chaos.web_t', 'RAW');
CALL dbms_aqadm.create_queue('chaos.web_in', 'chaos.web_t'); CALL dbms_aqadm.start_queue('chaos.web_in');
