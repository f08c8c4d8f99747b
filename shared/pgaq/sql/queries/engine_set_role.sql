-- SET LOCAL ROLE, parameterised
SELECT set_config('role', $1::text, true)
