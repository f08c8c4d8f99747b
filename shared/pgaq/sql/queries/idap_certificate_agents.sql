-- The agents that name a certificate (TLS client certificate login). Matched in Python,
-- which reads and normalises distinguished names (pgaq.idap.auth.parse_dn). enable_anyp
-- (any protocol) enables HTTP too, as in Oracle.
SELECT name, certificate_location, enable_http OR enable_anyp AS enable_http FROM aq.agents WHERE certificate_location IS NOT NULL
