-- Oracle's generic JMS payload type SYS.AQ$_JMS_MESSAGE (seed 004: "Multiple JMS messages
-- types on a single JMS queue or topic (using Oracle Database Advanced Queuing queues of the
-- AQ$_JMS_MESSAGE type)"; each message type's section: "create the queue table with the
-- SYS.AQ$_JMS_<type>_MESSAGE or AQ$_JMS_MESSAGE payload types"). One type for every JMS
-- body, message_type saying which (Oracle's DBMS_AQ JMS constants: 0 text, 1 bytes,
-- 2 stream, 3 map, 4 object): a text body in text_len / text_vc, a bytes, stream or object
-- body in bytes_len / bytes_raw, each as the typed sys.aq$_jms_*_message types hold it, a
-- map body in map. Its queue tables are of payload kind JMS_MESSAGE (aq.payload_kind,
-- R__14_admin.sql): JMS selectors read its header as the typed kinds' (R__20_conditions_5),
-- and the JMS provider trigger sets JMSXUserID / JMSXAppID in it (R__52).
CREATE TYPE sys.aq$_jms_message AS (
    header sys.aq$_jms_header, message_type integer, text_len integer, text_vc text,
    bytes_len integer, bytes_raw bytea, map jsonb);

-- the payload kinds a queue table may have: the typed ones and now the generic one
ALTER TABLE aq.queue_tables DROP CONSTRAINT queue_tables_payload_kind_check;
ALTER TABLE aq.queue_tables ADD CONSTRAINT queue_tables_payload_kind_check CHECK (payload_kind IN
    ('RAW', 'OBJECT', 'JMS_TEXT', 'JMS_BYTES', 'JMS_MAP', 'JMS_OBJECT', 'JMS_STREAM', 'JMS_MESSAGE'));
