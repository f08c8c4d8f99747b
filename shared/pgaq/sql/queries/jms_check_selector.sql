SELECT (aq.compile_condition($1::text, aq.rule_dialect(q), q.payload_type)).sql IS NOT NULL
FROM aq.resolve_queue($2::text) q
