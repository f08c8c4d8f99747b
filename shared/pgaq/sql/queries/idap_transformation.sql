-- aq.idap_transformation run as role $5 in one statement (see pgaq.queries.as_role): the
-- role is set in the function scan's argument, so an unqualified name is the role's.
-- $1 transformation name (or NULL: the consumer's subscription), $2 queue id,
-- $3 true for an enqueue, $4 consumer name
SELECT name, from_type, from_kind, to_type, to_kind
FROM aq.idap_transformation(CASE WHEN set_config('role', $5::text, true) IS NOT NULL THEN $1::text END,
                            $2::integer, $3::boolean, $4::text)
