-- Condition compiler, part 4 of 7: SQL generation for the AQ dialect (dequeue conditions
-- and subscriber rules on queues whose payload is not JMS).
--
-- aq._condition_aq(node, payload_type, param_number, param_offset, params) compiles an AST
-- (R__20_conditions_3_parser.sql) into an aq._condition_fragment: SQL over the message row
-- `m`, with Oracle SQL's semantics. Nothing the user wrote is pasted into the SQL:
-- identifiers are resolved against a fixed list of message columns or against pg_attribute
-- of the payload type and written with %I; every literal becomes a parameter (see
-- aq._condition_param_ref). Identifiers: [tab.]<column> (priority, delay, expiration,
-- retry_count, state, sender_protocol, corrid, sender_name, sender_address,
-- exception_queue, enq_uid, msgid, original_msgid, enq_time) and
-- [tab.]user_data[.<attribute>...]; functions UPPER LOWER LENGTH ABS SUBSTR TRIM COALESCE NVL.
--
-- Semantics:
--   * number vs string column compares numerically via aq.try_numeric (non numbers are
--     UNKNOWN, never a runtime error); a string literal compared with a number, timestamp
--     or boolean is converted at compile time (ORA-00932 if it does not convert).
--   * a RAW compares with a hex string literal as bytes, with other strings as upper-case hex.
--   * LIKE without ESCAPE has no escape character (Oracle semantics, not PostgreSQL's \).
--   * + - * / are computed in numeric (no integer overflow at dequeue time); a / b is exact
--     division; division by zero yields NULL.
--   * || follows Oracle (NULL behaves as '').
--   * SUBSTR is Oracle's (aq.ora_substr, R__20_conditions_6_runtime.sql).

-- category of a PostgreSQL type: num str ts tsl date bool raw comp other
CREATE OR REPLACE FUNCTION aq._condition_type_category(type_oid oid) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE t oid := type_oid; tt "char"; bt oid; rel oid;
BEGIN
  LOOP
    SELECT typtype, typbasetype, typrelid INTO tt, bt, rel FROM pg_type WHERE oid = t;
    EXIT WHEN tt IS DISTINCT FROM 'd';
    t := bt;
  END LOOP;
  RETURN CASE
    WHEN t IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'numeric'::regtype,
               'float4'::regtype, 'float8'::regtype) THEN 'num'
    WHEN t IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype, 'name'::regtype,
               '"char"'::regtype) THEN 'str'
    WHEN t = 'timestamptz'::regtype THEN 'ts'
    WHEN t = 'timestamp'::regtype THEN 'tsl'
    WHEN t = 'date'::regtype THEN 'date'
    WHEN t = 'bool'::regtype THEN 'bool'
    WHEN t = 'bytea'::regtype THEN 'raw'
    WHEN tt = 'c' THEN 'comp'
    ELSE 'other' END;
END $$;

CREATE OR REPLACE FUNCTION aq._condition_aq_category_name(category text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE category WHEN 'num' THEN 'NUMBER' WHEN 'lnum' THEN 'NUMBER' WHEN 'str' THEN 'CHAR'
                WHEN 'lstr' THEN 'CHAR' WHEN 'ts' THEN 'TIMESTAMP WITH TIME ZONE'
                WHEN 'tsl' THEN 'TIMESTAMP' WHEN 'date' THEN 'DATE' WHEN 'bool' THEN 'BOOLEAN'
                WHEN 'lbool' THEN 'BOOLEAN' WHEN 'raw' THEN 'RAW' WHEN 'comp' THEN 'OBJECT'
                WHEN 'null' THEN 'NULL' ELSE 'UNSUPPORTED TYPE' END
$$;

CREATE OR REPLACE FUNCTION aq._condition_aq_base_category(category text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE category WHEN 'lnum' THEN 'num' WHEN 'lstr' THEN 'str' WHEN 'lbool' THEN 'bool' ELSE category END
$$;

-- resolve [tab.]column / [tab.]user_data[.attr...]
CREATE OR REPLACE FUNCTION aq._condition_aq_identifier(node jsonb, payload_type oid) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  parts text[]; quoted boolean[]; cnt integer; i integer := 1; nm text; s text; typ oid; rel oid;
  an name; at oid; hits integer; fullname text; pos integer := (node->>'pos')::integer;
BEGIN
  SELECT array_agg(e ORDER BY o) INTO parts FROM jsonb_array_elements_text(node->'path') WITH ORDINALITY x(e, o);
  SELECT array_agg(e::boolean ORDER BY o) INTO quoted FROM jsonb_array_elements_text(node->'quoted') WITH ORDINALITY x(e, o);
  cnt := cardinality(parts);
  fullname := array_to_string(parts, '.');
  IF cnt > 1 AND NOT quoted[1] AND lower(parts[1]) = 'tab' THEN i := 2; END IF;
  nm := CASE WHEN quoted[i] THEN parts[i] ELSE lower(parts[i]) END;
  IF i = cnt THEN
    CASE nm
    WHEN 'priority', 'delay', 'expiration', 'retry_count', 'state', 'sender_protocol' THEN
      RETURN ARRAY[format('m.%I', nm), 'num'];
    WHEN 'corrid', 'sender_name', 'sender_address', 'exception_queue', 'enq_uid' THEN
      RETURN ARRAY[format('m.%I', nm), 'str'];
    WHEN 'msgid', 'original_msgid' THEN
      RETURN ARRAY[format('m.%I', nm), 'raw'];
    WHEN 'enq_time' THEN
      RETURN ARRAY['m.enq_time', 'ts'];
    ELSE NULL;
    END CASE;
  END IF;
  IF nm <> 'user_data' OR payload_type IS NULL THEN
    PERFORM aq._condition_raise('ident', pos, fullname);
  END IF;
  s := 'm.user_data';
  typ := payload_type;
  FOR j IN i + 1 .. cnt LOOP
    -- domains over composites
    LOOP
      SELECT CASE WHEN typtype = 'd' THEN typbasetype END, typrelid INTO at, rel FROM pg_type WHERE oid = typ;
      EXIT WHEN at IS NULL;
      typ := at;
    END LOOP;
    IF rel IS NULL OR rel = 0 THEN
      PERFORM aq._condition_raise('ident', pos, fullname);
    END IF;
    IF quoted[j] THEN
      SELECT a.attname, a.atttypid INTO an, at FROM pg_attribute a
       WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND a.attname = parts[j];
      hits := CASE WHEN an IS NULL THEN 0 ELSE 1 END;
    ELSE
      SELECT a.attname, a.atttypid, count(*) OVER () INTO an, at, hits FROM pg_attribute a
       WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND lower(a.attname) = lower(parts[j])
       ORDER BY (a.attname = lower(parts[j])) DESC, a.attnum;
      IF hits > 1 AND an <> lower(parts[j]) THEN
        PERFORM aq._condition_raise('ambiguous', pos, fullname);
      END IF;
    END IF;
    IF coalesce(hits, 0) = 0 THEN
      PERFORM aq._condition_raise('ident', pos, fullname);
    END IF;
    s := format('((%s).%I)', s, an);
    typ := at;
  END LOOP;
  RETURN ARRAY[s, aq._condition_type_category(typ)];
END $$;

-- any scalar as text (strings_only: only strings / RAW)
CREATE OR REPLACE FUNCTION aq._condition_aq_text(fragment aq._condition_fragment, strings_only boolean, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF fragment.category IN ('str', 'lstr') THEN RETURN fragment.sql;
  ELSIF fragment.category = 'raw' THEN RETURN format('upper(encode(%s, ''hex''))', fragment.sql);
  ELSIF fragment.category = 'null' THEN RETURN 'NULL::text';
  ELSIF NOT strings_only AND fragment.category IN ('num', 'lnum', 'ts', 'tsl', 'date', 'bool', 'lbool') THEN
    RETURN format('(%s)::text', fragment.sql);
  END IF;
  PERFORM aq._condition_raise('type', pos, 'expected CHAR, got ' || aq._condition_aq_category_name(fragment.category));
  RETURN NULL;
END $$;

-- any scalar as number
CREATE OR REPLACE FUNCTION aq._condition_aq_number(fragment aq._condition_fragment, param_number integer, param_offset integer, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF fragment.category IN ('num', 'lnum') THEN RETURN fragment.sql;
  ELSIF fragment.category = 'lstr' THEN
    IF aq.try_numeric(fragment.params[fragment.literal_index]) IS NULL THEN
      PERFORM aq._condition_raise('type', pos, format('ORA-01722: invalid number %L', fragment.params[fragment.literal_index]));
    END IF;
    RETURN aq._condition_param_ref(param_number, param_offset, fragment.literal_index) || '::numeric';
  ELSIF fragment.category = 'str' THEN RETURN format('aq.try_numeric(%s)', fragment.sql);
  ELSIF fragment.category = 'null' THEN RETURN 'NULL::numeric';
  END IF;
  PERFORM aq._condition_raise('type', pos, 'expected NUMBER, got ' || aq._condition_aq_category_name(fragment.category));
  RETURN NULL;
END $$;

-- a string literal converted to ts/tsl/date/bool (validated now)
CREATE OR REPLACE FUNCTION aq._condition_aq_cast_literal(fragment aq._condition_fragment, target_category text, param_number integer,
                                                     param_offset integer, pos integer)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE literal text := fragment.params[fragment.literal_index]; typ text;
BEGIN
  typ := CASE target_category WHEN 'ts' THEN 'timestamptz' WHEN 'tsl' THEN 'timestamp' WHEN 'date' THEN 'date'
                     WHEN 'bool' THEN 'boolean' END;
  BEGIN
    CASE target_category
    WHEN 'ts' THEN PERFORM literal::timestamptz;
    WHEN 'tsl' THEN PERFORM literal::timestamp;
    WHEN 'date' THEN PERFORM literal::date;
    WHEN 'bool' THEN PERFORM literal::boolean;
    END CASE;
  EXCEPTION WHEN others THEN
    PERFORM aq._condition_raise('type', pos, format('cannot convert %L to %s', literal, aq._condition_aq_category_name(target_category)));
  END;
  RETURN aq._condition_param_ref(param_number, param_offset, fragment.literal_index) || '::' || typ;
END $$;

-- bring two operands to a comparable form; NULL when one of them is the NULL literal
CREATE OR REPLACE FUNCTION aq._condition_aq_unify(left_operand aq._condition_fragment, right_operand aq._condition_fragment,
                                              param_number integer, param_offset integer, pos integer)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE left_base text := aq._condition_aq_base_category(left_operand.category); right_base text := aq._condition_aq_base_category(right_operand.category);
BEGIN
  IF left_base = 'null' OR right_base = 'null' THEN RETURN NULL; END IF;
  IF left_base = 'raw' OR right_base = 'raw' THEN
    IF left_base = right_base THEN RETURN ARRAY[left_operand.sql, right_operand.sql]; END IF;
    IF right_operand.category = 'lstr' AND right_operand.params[right_operand.literal_index] ~ '^([0-9A-Fa-f]{2})*$' THEN
      RETURN ARRAY[left_operand.sql, format('decode(%s, ''hex'')', right_operand.sql)];
    ELSIF left_operand.category = 'lstr' AND left_operand.params[left_operand.literal_index] ~ '^([0-9A-Fa-f]{2})*$' THEN
      RETURN ARRAY[format('decode(%s, ''hex'')', left_operand.sql), right_operand.sql];
    ELSIF left_base = 'str' OR right_base = 'str' THEN
      RETURN ARRAY[CASE WHEN left_operand.category = 'lstr' THEN format('upper(%s)', left_operand.sql) ELSE aq._condition_aq_text(left_operand, true, pos) END,
                   CASE WHEN right_operand.category = 'lstr' THEN format('upper(%s)', right_operand.sql) ELSE aq._condition_aq_text(right_operand, true, pos) END];
    END IF;
  ELSIF left_base = right_base AND left_base IN ('num', 'str', 'bool', 'ts', 'tsl', 'date') THEN
    RETURN ARRAY[left_operand.sql, right_operand.sql];
  ELSIF left_base = 'num' AND right_base = 'str' OR left_base = 'str' AND right_base = 'num' THEN
    RETURN ARRAY[aq._condition_aq_number(left_operand, param_number, param_offset, pos), aq._condition_aq_number(right_operand, param_number, param_offset, pos)];
  ELSIF left_base IN ('ts', 'tsl', 'date') AND right_base IN ('ts', 'tsl', 'date') THEN
    RETURN ARRAY[left_operand.sql, right_operand.sql];
  ELSIF left_base IN ('ts', 'tsl', 'date', 'bool') AND right_operand.category = 'lstr' THEN
    RETURN ARRAY[left_operand.sql, aq._condition_aq_cast_literal(right_operand, left_base, param_number, param_offset, pos)];
  ELSIF right_base IN ('ts', 'tsl', 'date', 'bool') AND left_operand.category = 'lstr' THEN
    RETURN ARRAY[aq._condition_aq_cast_literal(left_operand, right_base, param_number, param_offset, pos), right_operand.sql];
  END IF;
  PERFORM aq._condition_raise('type', pos,
    format('expected %s, got %s', aq._condition_aq_category_name(left_operand.category), aq._condition_aq_category_name(right_operand.category)));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION aq._condition_aq_boolean(fragment aq._condition_fragment, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF fragment.category IN ('bool', 'lbool') THEN RETURN fragment.sql;
  ELSIF fragment.category = 'null' THEN RETURN 'NULL::boolean';
  END IF;
  PERFORM aq._condition_raise('type', pos, 'expected BOOLEAN, got ' || aq._condition_aq_category_name(fragment.category));
  RETURN NULL;
END $$;

-- aq._condition_aq's steps for one node each, given its operands already compiled (the
-- recursion stays in aq._condition_aq, so a deep tree takes no more stack than one
-- function's frames per level; literals, the most frequent nodes, it compiles itself);
-- params: the parameters so far, which each one extends.

-- refuses a call of a function the dialect does not have, or with the wrong number of
-- arguments (before its arguments are compiled)
CREATE OR REPLACE FUNCTION aq._condition_aq_check_call(node jsonb) RETURNS void
LANGUAGE plpgsql STABLE AS $f$
DECLARE
  v text := node->>'name';
  cnt integer := jsonb_array_length(node->'args');
BEGIN
  IF v NOT IN ('UPPER', 'LOWER', 'LENGTH', 'ABS', 'SUBSTR', 'TRIM', 'COALESCE', 'NVL') THEN
    PERFORM aq._condition_raise('ident', (node->>'pos')::integer, node->>'spelled');
  END IF;
  IF v IN ('UPPER', 'LOWER', 'LENGTH', 'ABS', 'TRIM') AND cnt <> 1
     OR v = 'SUBSTR' AND cnt NOT IN (2, 3) OR v = 'NVL' AND cnt <> 2 OR v = 'COALESCE' AND cnt < 1 THEN
    PERFORM aq._condition_raise('args', (node->>'pos')::integer, v);
  END IF;
END $f$;

-- a function call, its arguments compiled (args); params: the parameters after them
CREATE OR REPLACE FUNCTION aq._condition_aq_call(node jsonb, args aq._condition_fragment[], param_number integer,
                                                 param_offset integer, params text[])
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  v text := node->>'name';
  cnt integer := cardinality(args);
  a aq._condition_fragment;
  s text; tcat text; parts text[] := '{}';
BEGIN
  CASE v
  WHEN 'UPPER', 'LOWER' THEN
    RETURN aq._condition_new_fragment(format('%s(%s)', lower(v), aq._condition_aq_text(args[1], false, (node->'args'->0->>'pos')::integer)),
               'str', params, NULL);
  WHEN 'TRIM' THEN
    RETURN aq._condition_new_fragment(format('btrim(%s)', aq._condition_aq_text(args[1], false, (node->'args'->0->>'pos')::integer)), 'str', params, NULL);
  WHEN 'LENGTH' THEN
    RETURN aq._condition_new_fragment(format('length(%s)', aq._condition_aq_text(args[1], false, (node->'args'->0->>'pos')::integer)), 'num', params, NULL);
  WHEN 'ABS' THEN
    RETURN aq._condition_new_fragment(format('abs(%s)', aq._condition_aq_number(args[1], param_number, param_offset, (node->'args'->0->>'pos')::integer)), 'num', params, NULL);
  WHEN 'SUBSTR' THEN
    RETURN aq._condition_new_fragment(format('aq.ora_substr(%s, %s, %s)',
                      aq._condition_aq_text(args[1], false, (node->'args'->0->>'pos')::integer),
                      aq._condition_aq_number(args[2], param_number, param_offset, (node->'args'->1->>'pos')::integer),
                      CASE WHEN cnt = 3 THEN aq._condition_aq_number(args[3], param_number, param_offset, (node->'args'->2->>'pos')::integer)
                           ELSE 'NULL' END),
               'str', params, NULL);
  ELSE -- COALESCE / NVL: type of the first non-NULL argument
    FOR i IN 1 .. cnt LOOP
      IF args[i].category <> 'null' THEN tcat := aq._condition_aq_base_category(args[i].category); EXIT; END IF;
    END LOOP;
    IF tcat IS NULL THEN RETURN aq._condition_new_fragment('NULL', 'null', params, NULL); END IF;
    FOR i IN 1 .. cnt LOOP
      a := args[i];
      IF a.category = 'null' THEN s := 'NULL';
      ELSIF tcat = 'num' THEN s := aq._condition_aq_number(a, param_number, param_offset, (node->'args'->(i - 1)->>'pos')::integer);
      ELSIF tcat = 'str' THEN s := aq._condition_aq_text(a, false, (node->'args'->(i - 1)->>'pos')::integer);
      ELSIF aq._condition_aq_base_category(a.category) = tcat THEN s := a.sql;
      ELSIF tcat IN ('ts', 'tsl', 'date') AND a.category IN ('ts', 'tsl', 'date') THEN s := a.sql;
      ELSIF tcat IN ('ts', 'tsl', 'date', 'bool') AND a.category = 'lstr' THEN
        s := aq._condition_aq_cast_literal(a, tcat, param_number, param_offset, (node->'args'->(i - 1)->>'pos')::integer);
      ELSE
        PERFORM aq._condition_raise('type', (node->'args'->(i - 1)->>'pos')::integer,
          format('expected %s, got %s', aq._condition_aq_category_name(tcat), aq._condition_aq_category_name(a.category)));
      END IF;
      parts := parts || s;
    END LOOP;
    RETURN aq._condition_new_fragment(format('COALESCE(%s)', array_to_string(parts, ', ')), tcat, params, NULL);
  END CASE;
END $f$;

-- a binary operator (arithmetic, ||, comparison) over a and b
CREATE OR REPLACE FUNCTION aq._condition_aq_binary(node jsonb, a aq._condition_fragment, b aq._condition_fragment,
                                                   param_number integer, param_offset integer)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  v text := node->>'operator';
  x text[];
BEGIN
  IF v IN ('+', '-', '*') THEN
    -- in numeric, as Oracle's NUMBER: bigint literals and integer columns never overflow
    RETURN aq._condition_new_fragment(format('((%s)::numeric %s (%s)::numeric)', aq._condition_aq_number(a, param_number, param_offset, (node->'left'->>'pos')::integer), v,
                      aq._condition_aq_number(b, param_number, param_offset, (node->'right'->>'pos')::integer)), 'num', b.params, NULL);
  ELSIF v = '/' THEN
    RETURN aq._condition_new_fragment(format('((%s)::numeric / NULLIF(%s, 0))', aq._condition_aq_number(a, param_number, param_offset, (node->'left'->>'pos')::integer),
                      aq._condition_aq_number(b, param_number, param_offset, (node->'right'->>'pos')::integer)), 'num', b.params, NULL);
  ELSIF v = '||' THEN
    RETURN aq._condition_new_fragment(format('concat(%s, %s)', aq._condition_aq_text(a, false, (node->'left'->>'pos')::integer),
                      aq._condition_aq_text(b, false, (node->'right'->>'pos')::integer)), 'str', b.params, NULL);
  END IF;
  x := aq._condition_aq_unify(a, b, param_number, param_offset, (node->>'pos')::integer);
  IF x IS NULL THEN RETURN aq._condition_new_fragment('NULL::boolean', 'bool', b.params, NULL); END IF;
  RETURN aq._condition_new_fragment(format('(%s %s %s)', x[1], v, x[2]), 'bool', b.params, NULL);
END $f$;

-- a IS [NOT] NULL
CREATE OR REPLACE FUNCTION aq._condition_aq_is_null(a aq._condition_fragment, negated boolean)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
BEGIN
  IF a.category = 'comp' THEN
    -- a composite is NULL only when the value itself is NULL (not when all fields are)
    RETURN aq._condition_new_fragment(format('(%s IS %sDISTINCT FROM NULL)', a.sql, CASE WHEN negated THEN '' ELSE 'NOT ' END),
                                      'bool', a.params, NULL);
  END IF;
  RETURN aq._condition_new_fragment(format('(%s IS %sNULL)', a.sql, CASE WHEN negated THEN 'NOT ' ELSE '' END),
                                    'bool', a.params, NULL);
END $f$;

-- a [NOT] BETWEEN low AND high
CREATE OR REPLACE FUNCTION aq._condition_aq_between(node jsonb, a aq._condition_fragment, low aq._condition_fragment,
                                                    high aq._condition_fragment, param_number integer, param_offset integer)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  x text[] := aq._condition_aq_unify(a, low, param_number, param_offset, (node->>'pos')::integer);
  y text[] := aq._condition_aq_unify(a, high, param_number, param_offset, (node->>'pos')::integer);
  s text;
BEGIN
  s := format('(%s AND %s)',
              CASE WHEN x IS NULL THEN 'NULL::boolean' ELSE format('%s >= %s', x[1], x[2]) END,
              CASE WHEN y IS NULL THEN 'NULL::boolean' ELSE format('%s <= %s', y[1], y[2]) END);
  IF (node->>'negated')::boolean THEN s := format('(NOT %s)', s); END IF;
  RETURN aq._condition_new_fragment(s, 'bool', high.params, NULL);
END $f$;

-- a [NOT] LIKE pattern [ESCAPE node's escape literal]
CREATE OR REPLACE FUNCTION aq._condition_aq_like(node jsonb, a aq._condition_fragment, pattern aq._condition_fragment,
                                                 payload_type oid, param_number integer, param_offset integer)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  params text[] := pattern.params;
  el jsonb := node->'escape';
  c aq._condition_fragment;
  esc text := '''''';
BEGIN
  IF jsonb_typeof(el) = 'object' THEN
    IF el->>'kind' <> 'literal' OR el->>'type' <> 'string' THEN
      PERFORM aq._condition_raise('syntax', (el->>'pos')::integer, 'ESCAPE needs a string literal');
    END IF;
    IF pattern.category = 'lstr' THEN
      PERFORM aq._condition_check_like_escape(pattern.params[pattern.literal_index], el->>'value', (el->>'pos')::integer);
    ELSIF length(el->>'value') <> 1 THEN
      PERFORM aq._condition_raise('syntax', (el->>'pos')::integer, 'ESCAPE needs a string literal of exactly one character');
    END IF;
    c := aq._condition_aq(el, payload_type, param_number, param_offset, params);  -- (a literal)
    params := c.params;
    esc := c.sql;
  END IF;
  RETURN aq._condition_new_fragment(format('(%s %sLIKE %s ESCAPE %s)',
                                           aq._condition_aq_text(a, true, (node->'operand'->>'pos')::integer),
                                           CASE WHEN (node->>'negated')::boolean THEN 'NOT ' ELSE '' END,
                                           aq._condition_aq_text(pattern, true, (node->'pattern'->>'pos')::integer), esc),
                                    'bool', params, NULL);
END $f$;

CREATE OR REPLACE FUNCTION aq._condition_aq(node jsonb, payload_type oid, param_number integer,
                                            param_offset integer, params text[])
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  kind text := node->>'kind';
  pos integer := (node->>'pos')::integer;
  a aq._condition_fragment; b aq._condition_fragment; c aq._condition_fragment;
  s text; v text; x text[]; el jsonb; idx integer;
  args aq._condition_fragment[]; parts text[];
BEGIN
  IF kind = 'literal' THEN  -- NULL and booleans inline, strings and numbers as parameters
    v := node->>'value';
    CASE node->>'type'
    WHEN 'null' THEN RETURN aq._condition_new_fragment('NULL', 'null', params, NULL);
    WHEN 'boolean' THEN RETURN aq._condition_new_fragment(CASE v WHEN 'TRUE' THEN 'true' ELSE 'false' END, 'lbool', params, NULL);
    WHEN 'string' THEN
      params := params || v; idx := cardinality(params);
      RETURN aq._condition_new_fragment(aq._condition_param_ref(param_number, param_offset, idx) || '::text', 'lstr', params, idx);
    WHEN 'integer' THEN
      params := params || v; idx := cardinality(params);
      RETURN aq._condition_new_fragment(aq._condition_param_ref(param_number, param_offset, idx)
                 || CASE WHEN length(ltrim(v, '+-0')) <= 18 THEN '::bigint' ELSE '::numeric' END,
                 'lnum', params, idx);
    ELSE
      IF aq.try_numeric(v) IS NULL THEN
        PERFORM aq._condition_raise('syntax', pos, 'numeric literal out of range');
      END IF;
      params := params || v; idx := cardinality(params);
      RETURN aq._condition_new_fragment(aq._condition_param_ref(param_number, param_offset, idx) || '::numeric', 'lnum', params, idx);
    END CASE;

  ELSIF kind = 'identifier' THEN
    x := aq._condition_aq_identifier(node, payload_type);
    RETURN aq._condition_new_fragment(x[1], x[2], params, NULL);

  ELSIF kind = 'function' THEN
    PERFORM aq._condition_aq_check_call(node);
    args := '{}';
    FOR el IN SELECT * FROM jsonb_array_elements(node->'args') LOOP
      a := aq._condition_aq(el, payload_type, param_number, param_offset, params);
      params := a.params;
      args := args || a;
    END LOOP;
    RETURN aq._condition_aq_call(node, args, param_number, param_offset, params);

  ELSIF kind IN ('minus', 'plus') THEN
    a := aq._condition_aq(node->'operand', payload_type, param_number, param_offset, params);
    s := aq._condition_aq_number(a, param_number, param_offset, (node->'operand'->>'pos')::integer);
    RETURN aq._condition_new_fragment(CASE kind WHEN 'minus' THEN format('(-(%s)::numeric)', s) ELSE s END, 'num', a.params, NULL);

  ELSIF kind = 'binary' THEN
    a := aq._condition_aq(node->'left', payload_type, param_number, param_offset, params);
    b := aq._condition_aq(node->'right', payload_type, param_number, param_offset, a.params);
    RETURN aq._condition_aq_binary(node, a, b, param_number, param_offset);

  ELSIF kind IN ('and', 'or') THEN
    a := aq._condition_aq(node->'left', payload_type, param_number, param_offset, params);
    b := aq._condition_aq(node->'right', payload_type, param_number, param_offset, a.params);
    RETURN aq._condition_new_fragment(format('(%s %s %s)', aq._condition_aq_boolean(a, (node->'left'->>'pos')::integer), upper(kind),
                      aq._condition_aq_boolean(b, (node->'right'->>'pos')::integer)), 'bool', b.params, NULL);

  ELSIF kind = 'not' THEN
    a := aq._condition_aq(node->'operand', payload_type, param_number, param_offset, params);
    RETURN aq._condition_new_fragment(format('(NOT %s)', aq._condition_aq_boolean(a, (node->'operand'->>'pos')::integer)), 'bool', a.params, NULL);

  ELSIF kind = 'is_null' THEN
    a := aq._condition_aq(node->'operand', payload_type, param_number, param_offset, params);
    RETURN aq._condition_aq_is_null(a, (node->>'negated')::boolean);

  ELSIF kind = 'between' THEN
    a := aq._condition_aq(node->'operand', payload_type, param_number, param_offset, params);
    b := aq._condition_aq(node->'low', payload_type, param_number, param_offset, a.params);
    c := aq._condition_aq(node->'high', payload_type, param_number, param_offset, b.params);
    RETURN aq._condition_aq_between(node, a, b, c, param_number, param_offset);

  ELSIF kind = 'in' THEN
    a := aq._condition_aq(node->'operand', payload_type, param_number, param_offset, params);
    params := a.params;
    parts := '{}';
    FOR el IN SELECT * FROM jsonb_array_elements(node->'list') LOOP
      b := aq._condition_aq(el, payload_type, param_number, param_offset, params);
      params := b.params;
      x := aq._condition_aq_unify(a, b, param_number, param_offset, (el->>'pos')::integer);
      parts := parts || CASE WHEN x IS NULL THEN 'NULL::boolean' ELSE format('%s = %s', x[1], x[2]) END;
    END LOOP;
    s := format('(%s)', array_to_string(parts, ' OR '));
    IF (node->>'negated')::boolean THEN s := format('(NOT %s)', s); END IF;
    RETURN aq._condition_new_fragment(s, 'bool', params, NULL);

  ELSIF kind = 'like' THEN
    a := aq._condition_aq(node->'operand', payload_type, param_number, param_offset, params);
    b := aq._condition_aq(node->'pattern', payload_type, param_number, param_offset, a.params);
    RETURN aq._condition_aq_like(node, a, b, payload_type, param_number, param_offset);
  END IF;
  PERFORM aq._condition_raise('syntax', pos, 'unsupported construct');
  RETURN NULL;
END $f$;
