-- {fn} is a function name PostgreSQL quoted with format('%I.%I') (aq.fast_path)
SELECT {fn}($1::name, $2::integer[], $3::integer[], $4::integer[], $5::text[], $6::bytea[], $7::jsonb, $8::text)
