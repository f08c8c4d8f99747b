-- {fn} is a function name PostgreSQL quoted with format('%I.%I') (aq.fast_path)
SELECT {fn}($1::name, $2::jsonb, $3::jsonb, $4::bytea[], $5::text)
