-- $1 destination, $2 consumer, $3 notify_url, $4 agent, $5 lookup type
SELECT aq.register(p_queue => $1::text, p_consumer => $2::text, p_url => $3::text,
                   p_agent => $4::text, p_lookup => $5::text)
