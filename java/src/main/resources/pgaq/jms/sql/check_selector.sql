-- ? a selector, ? the queue: compiles it (an error when it does not)
SELECT (aq.compile_condition(?, aq.rule_dialect(q), q.payload_type)).sql IS NOT NULL
FROM aq.resolve_queue(?) q
