-- SET LOCAL statement_timeout for a plsql notification's call; $1 milliseconds
SELECT set_config('statement_timeout', $1::text, true)
