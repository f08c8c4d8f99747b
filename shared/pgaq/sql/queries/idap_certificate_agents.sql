-- The agents that name a certificate (TLS client certificate login). Matched in Python,
-- which reads and normalises distinguished names (pgaq.idap.auth.parse_dn).
SELECT name, certificate_location, enable_http FROM aq.agents WHERE certificate_location IS NOT NULL
