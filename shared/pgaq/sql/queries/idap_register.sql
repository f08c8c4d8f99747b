-- $1 destination, $2 consumer, $3 notify_url, $4 agent, $5 lookup type
SELECT aq.register($1::text, $2::text, $3::text, $4::text, 'XML', $5::text)
