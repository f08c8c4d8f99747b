-- The CALL of a plsql:// registration's procedure and its arguments, Oracle's signature:
-- (context bytea, reginfo sys.aq$_reg_info, descr sys.aq$_descriptor, payload bytea,
-- payloadl integer). The composite arguments travel as their text form; the procedure
-- name is quoted by format('%I'). $1 notification id
SELECT format('CALL %I.%I($1::bytea, $2::text::sys.aq$_reg_info, $3::text::sys.aq$_descriptor, $4::bytea, $5::integer)',
              split_part((aq.parse_notify_url(n.url)).target, '.', 1),
              split_part((aq.parse_notify_url(n.url)).target, '.', 2)) AS call_sql,
       n.user_context AS context,
       ROW(n.reg_name, n.namespace, n.url, n.user_context,
           (CASE WHEN n.payload IS NOT NULL THEN 2 ELSE 0 END), 0)::sys.aq$_reg_info::text AS reginfo,
       ROW(n.msgid, n.consumer_name, n.queue_name,
           ROW((n.message->>'priority')::integer, (n.message->>'delay')::integer,
               (n.message->>'expiration')::integer, n.message->>'correlation',
               (n.message->>'attempts')::integer, NULL, n.message->>'exception_queue',
               (n.message->>'enq_time')::timestamptz, (n.message->>'state')::integer,
               CASE WHEN n.message->>'sender_name' IS NOT NULL OR n.message->>'sender_address' IS NOT NULL
                    THEN ROW(n.message->>'sender_name', n.message->>'sender_address',
                             (n.message->>'sender_protocol')::integer)::sys.aq$_agent END,
               decode(n.message->>'original_msgid', 'hex'), NULL, NULL, NULL, 'PERSISTENT'
           )::dbms_aq.message_properties_t,
           CASE n.event WHEN 'TIMEOUT' THEN 1 ELSE 0 END)::sys.aq$_descriptor::text AS descr,
       n.payload,
       length(n.payload) AS payloadl
FROM aq.notifications n
WHERE n.id = $1
