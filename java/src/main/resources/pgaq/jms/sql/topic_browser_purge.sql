-- ? topic, ? durable subscriber, ? ids (hex) a TopicBrowser showed: removed for the
-- subscriber as its receive would (persistent messages); how many
SELECT aq.jms_topic_browser_purge(?, ?, ARRAY(SELECT decode(x, 'hex') FROM unnest(?::text[]) x))
