-- The core service's JSON admin API: CALL a dbms_aqadm procedure with named arguments
-- from a JSON object. The procedure and argument names must exist in the catalog; names
-- are quoted with format('%I'), values travel in the parameter $1.
CREATE OR REPLACE FUNCTION aq.admin_call(p_procedure text, p_args jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  proc record;
  k text;
  argtype oid;
  pos integer;
  parts text[] := '{}';
BEGIN
  IF p_args IS NULL OR jsonb_typeof(p_args) <> 'object' THEN
    PERFORM aq.err(24031, 'invalid value, the arguments should be a JSON object', '22023');
  END IF;
  SELECT p.oid, p.proargnames, p.proargtypes INTO proc
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'dbms_aqadm' AND p.proname = lower(p_procedure) AND p.prokind = 'p'
  LIMIT 1;
  IF NOT FOUND OR p_procedure !~ '^[A-Za-z_][A-Za-z0-9_]*$' THEN
    PERFORM aq.err(6550, format('unknown procedure dbms_aqadm.%s', left(coalesce(p_procedure, ''), 64)), '42883');
  END IF;
  FOR k IN SELECT jsonb_object_keys(p_args) LOOP
    pos := array_position(proc.proargnames, lower(k));
    IF pos IS NULL THEN
      PERFORM aq.err(6550, format('dbms_aqadm.%s has no argument %s', lower(p_procedure), left(k, 64)), '42883');
    END IF;
    argtype := proc.proargtypes[pos - 1];
    IF (SELECT typtype FROM pg_type WHERE oid = argtype) = 'c' THEN
      parts := parts || format('%I => jsonb_populate_record(NULL::%s, $1 -> %L)',
                               proc.proargnames[pos], format_type(argtype, NULL), proc.proargnames[pos]);
    ELSE
      parts := parts || format('%I => ($1 ->> %L)::%s', proc.proargnames[pos], proc.proargnames[pos],
                               format_type(argtype, NULL));
    END IF;
  END LOOP;
  EXECUTE format('CALL dbms_aqadm.%I(%s)', lower(p_procedure), array_to_string(parts, ', '))
    USING p_args;
END $$;
