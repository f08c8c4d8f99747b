-- The core service's JSON admin API: CALL a dbms_aqadm procedure with named arguments
-- taken from a JSON object, for automation tools that do not speak SQL.
-- Nothing from the caller reaches the SQL text unchecked: the procedure must be a
-- procedure of schema dbms_aqadm in pg_proc, each key must be one of its IN argument
-- names (proargnames), both are quoted with %I anyway, and every value travels in the
-- parameter $1, cast to the argument's declared type read from the catalog.
-- CALL arguments may not hold subqueries: arrays from JSON go through these helpers.
CREATE OR REPLACE FUNCTION aq.admin_json_text_array(p jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p) = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(p)) END
$$;
CREATE OR REPLACE FUNCTION aq.admin_json_record_array(p_type anyelement, p jsonb) RETURNS anyarray
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(p) = 'array'
              THEN ARRAY(SELECT r FROM jsonb_populate_recordset(p_type, p) r) END
$$;

-- The dbms_aqadm procedure an admin call names: checks the name and the arguments' shape,
-- and picks the overload whose IN argument names cover every key and whose required
-- ones are given (PLS-00302, PLS-00306, PLS-00703 otherwise). Returns its pg_proc oid.
CREATE OR REPLACE FUNCTION aq.admin_procedure(p_procedure text, p_args jsonb) RETURNS oid
LANGUAGE plpgsql STABLE AS $$
DECLARE
  proc oid;
  bad text;
  label text := left(coalesce(p_procedure, ''), 64);
BEGIN
  IF p_procedure IS NULL OR p_procedure !~ '^[A-Za-z_][A-Za-z0-9_$#]{0,62}$' OR NOT EXISTS (
       SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'dbms_aqadm' AND p.proname = lower(p_procedure) AND p.prokind = 'p') THEN
    PERFORM aq.err(6550, format('PLS-00302: component %s must be declared in dbms_aqadm',
                                quote_literal(label)), '42883');
  END IF;
  IF p_args IS NULL OR jsonb_typeof(p_args) <> 'object' THEN
    PERFORM aq.err(6550, 'PLS-00306: the arguments must be a JSON object of named values', '22023');
  END IF;
  IF (SELECT count(*) <> count(DISTINCT lower(key)) FROM jsonb_object_keys(p_args) key) THEN
    PERFORM aq.err(6550, 'PLS-00703: an argument is named more than once', '42883');
  END IF;

  -- the overload whose IN argument names cover every key and whose required ones are given
  SELECT p.oid INTO proc
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'dbms_aqadm' AND p.proname = lower(p_procedure) AND p.prokind = 'p'
    AND NOT EXISTS (
      SELECT 1 FROM jsonb_object_keys(p_args) key
      WHERE NOT EXISTS (
        SELECT 1 FROM generate_subscripts(p.proargnames, 1) i
        WHERE p.proargnames[i] = lower(key)
          AND coalesce(p.proargmodes[i], 'i') IN ('i', 'b')))
    AND NOT EXISTS (
      SELECT 1 FROM generate_series(1, p.pronargs - p.pronargdefaults) i
      WHERE coalesce(p.proargmodes[i], 'i') IN ('i', 'b')
        AND NOT EXISTS (SELECT 1 FROM jsonb_object_keys(p_args) key
                        WHERE lower(key) = p.proargnames[i]))
  ORDER BY p.pronargs, p.oid
  LIMIT 1;
  IF proc IS NULL THEN
    SELECT key INTO bad FROM jsonb_object_keys(p_args) key
    WHERE NOT EXISTS (
      SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'dbms_aqadm' AND p.proname = lower(p_procedure) AND p.prokind = 'p'
        AND lower(key) = ANY (p.proargnames))
    ORDER BY key LIMIT 1;
    IF bad IS NOT NULL THEN
      PERFORM aq.err(6550, format('PLS-00306: dbms_aqadm.%s has no argument %s',
                                  lower(p_procedure), quote_literal(left(bad, 64))), '42883');
    END IF;
    PERFORM aq.err(6550, format('PLS-00306: wrong number or types of arguments in call to %s',
                                upper(lower(p_procedure))), '42883');
  END IF;
  RETURN proc;
END $$;

-- One argument of an admin call as CALL notation, `name => <value>`: the value read from
-- the JSON of the call (travelling as $1; v, under key k) and cast to the argument's
-- declared type argtype: an object type from a JSON object of its attributes, an array
-- from a JSON array, anything else from a scalar (ORA-06502, PLS-00302 otherwise).
CREATE OR REPLACE FUNCTION aq.admin_argument_sql(argname text, argtype oid, k text, v jsonb) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  typ record;
  bad text;
BEGIN
  SELECT t.typtype, t.typcategory, t.typelem, t.typrelid,
         e.typtype AS elemtype, e.typrelid AS elemrelid
    INTO typ
    FROM pg_type t LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
   WHERE t.oid = argtype;
  IF typ.typtype = 'c' THEN
    -- an object type (e.g. sys.aq$_agent): a JSON object of its attributes
    IF jsonb_typeof(v) NOT IN ('object', 'null') THEN
      PERFORM aq.err(6502, format('PL/SQL: numeric or value error: %s must be a JSON object of %s',
                                  argname, format_type(argtype, NULL)), '22023');
    END IF;
    SELECT key INTO bad FROM jsonb_object_keys(CASE jsonb_typeof(v) WHEN 'object' THEN v END) key
    WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = typ.typrelid
                        AND a.attname = key AND a.attnum > 0 AND NOT a.attisdropped)
    ORDER BY key LIMIT 1;
    IF bad IS NOT NULL THEN
      PERFORM aq.err(6550, format('PLS-00302: component %s of %s must be declared',
                                 quote_literal(left(bad, 64)), format_type(argtype, NULL)), '42883');
    END IF;
    RETURN aq.sql($s${{arg:ident}} => CASE WHEN jsonb_typeof($1 -> {{key:literal}}) = 'object' THEN jsonb_populate_record(NULL::{{type}}, $1 -> {{key:literal}}) END$s$,
                  jsonb_build_object('arg', argname, 'key', k, 'type', format_type(argtype, NULL)));
  ELSIF typ.typcategory = 'A' THEN
    IF jsonb_typeof(v) NOT IN ('array', 'null') THEN
      PERFORM aq.err(6502, format('PL/SQL: numeric or value error: %s must be a JSON array',
                                  argname), '22023');
    END IF;
    IF typ.elemtype = 'c' THEN
      RETURN aq.sql('{{arg:ident}} => aq.admin_json_record_array(NULL::{{type}}, $1 -> {{key:literal}})',
                    jsonb_build_object('arg', argname, 'key', k, 'type', format_type(typ.typelem, NULL)));
    ELSE
      RETURN aq.sql('{{arg:ident}} => aq.admin_json_text_array($1 -> {{key:literal}})::{{type}}',
                    jsonb_build_object('arg', argname, 'key', k, 'type', format_type(argtype, NULL)));
    END IF;
  ELSE
    IF jsonb_typeof(v) IN ('object', 'array') THEN
      PERFORM aq.err(6502, format('PL/SQL: numeric or value error: %s must be a scalar (%s)',
                                  argname, format_type(argtype, NULL)), '22023');
    END IF;
    RETURN aq.sql('{{arg:ident}} => ($1 ->> {{key:literal}})::{{type}}',
                  jsonb_build_object('arg', argname, 'key', k, 'type', format_type(argtype, NULL)));
  END IF;
END $$;

CREATE OR REPLACE FUNCTION aq.admin_call(p_procedure text, p_args jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  proc_oid oid := aq.admin_procedure(p_procedure, p_args);
  proc record;
  k text;
  v jsonb;
  pos integer;
  parts text[] := '{}';
BEGIN
  SELECT p.oid, p.proname, p.proargnames, p.proargtypes INTO proc
    FROM pg_proc p WHERE p.oid = proc_oid;
  FOR k, v IN SELECT * FROM jsonb_each(p_args) ORDER BY 1 LOOP
    pos := array_position(proc.proargnames, lower(k));
    parts := parts || aq.admin_argument_sql(argname => proc.proargnames[pos], argtype => proc.proargtypes[pos - 1],
                                            k => k, v => v);
  END LOOP;

  BEGIN
    -- (type: format_type's name of a catalog type; args: the parts above)
    EXECUTE aq.sql('CALL dbms_aqadm.{{procedure:ident}}({{args}})',
                   jsonb_build_object('procedure', proc.proname, 'args', array_to_string(parts, ', ')))
      USING p_args;
  EXCEPTION WHEN data_exception THEN
    -- a value that does not convert to the argument's type ("abc" for an integer...)
    IF SQLERRM ~ '^ORA-\d{5}' THEN
      RAISE;
    END IF;
    PERFORM aq.err(6502, 'PL/SQL: numeric or value error: ' || SQLERRM, SQLSTATE);
  END;
END $$;
