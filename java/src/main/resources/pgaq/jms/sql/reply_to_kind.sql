-- ? "owner.name": TOPIC, QUEUE, TEMPORARY_QUEUE, TEMPORARY_TOPIC
SELECT aq.jms_reply_to_kind(sys.aq$_agent(NULL, ?, 0))
