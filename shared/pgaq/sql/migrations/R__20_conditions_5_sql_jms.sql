-- Condition compiler, part 5 of 7: SQL generation for the JMS dialect (message selectors,
-- as dequeue conditions and as subscriber rules on queues whose payload is a JMS type).
--
-- aq._condition_jms(node, has_header, param_number, param_offset, params) compiles an AST
-- (R__20_conditions_3_parser.sql) into an aq._condition_fragment over the message row `m`.
-- has_header: the payload has a sys.aq$_jms_header `header` (JMSType, JMSXUserID, JMSXAppID,
-- JMSXGroupID, JMSXGroupSeq and user properties read it). Every literal and every property
-- name is a parameter.
--
-- Design notes (JMS 1.1 3.8.1.1, with issue 18's reading of it):
--   * every operand has a static category: str, exact (bigint/numeric), approx (numeric),
--     bool, null, or dyn (a user property: jsonb {"type": ..., "value": ...}). Statically
--     typed operations compile to plain SQL (index friendly); anything involving a dyn
--     operand compiles to a call of the aq.jms_* runtime helpers
--     (R__20_conditions_6_runtime.sql), which check the runtime type.
--   * unknown identifiers starting with "JMS" are errors, except JMSX* and JMS_* ones,
--     which are looked up as user properties (provider-specific properties).
--   * numbers are exact decimals, as Oracle's NUMBER holds JMS numeric properties: exact and
--     approximate values compare and compute in numeric, so an int 5 divided by 2 is 2.5 and
--     0.1 + 0.2 = 0.3. Division by zero is UNKNOWN; a double property's NaN compares as
--     Java's does (only <> is TRUE), its infinities as the largest and smallest values.
--   * strings and booleans compare only with = and <>: < <= > >= on them is UNKNOWN, and so
--     is any comparison of unlike types (a string with a number or a boolean, a boolean with
--     a number), BETWEEN with a non-numeric operand, IN / LIKE on a value that is not a
--     string; comparisons involving NULL / a missing property are UNKNOWN too. UNKNOWN,
--     not FALSE: NOT of it does not select the message either. Statically unlike operands
--     compile to NULL::boolean rather than an error.
--   * arithmetic on a statically string or boolean operand is a type error (ORA-00932); on a
--     property whose runtime value is not numeric it is UNKNOWN.
--   * a property used directly as a condition is UNKNOWN unless its value is boolean.
--   * x BETWEEN a AND b is (x >= a AND x <= b), NOT BETWEEN (x < a OR x > b), NOT IN is x <>
--     each element, exactly as JMS defines them (three-valued with NULL operands).
--   * JMSDeliveryMode is 'NON_PERSISTENT' for a buffered message and 'PERSISTENT' otherwise,
--     read from the row's delivery_mode column (aq.jms_delivery_mode), which the buffered
--     companion table (R__11_buffered.sql) defaults to BUFFERED: the same compiled SQL serves
--     both tables, as dequeue conditions and as subscriber rules cached once per queue must.
--   * JMSMessageID = 'ID:<32 hex>' compares the msgid column itself (index friendly).
--   * functions and || are not part of the selector syntax (ORA-00936).

CREATE OR REPLACE FUNCTION aq._condition_jms_category_name(category text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE category WHEN 'str' THEN 'STRING' WHEN 'exact' THEN 'NUMBER' WHEN 'approx' THEN 'NUMBER'
                WHEN 'bool' THEN 'BOOLEAN' WHEN 'null' THEN 'NULL' ELSE 'PROPERTY' END
$$;

CREATE OR REPLACE FUNCTION aq._condition_jms_typed(expression text, category text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE category WHEN 'dyn' THEN expression
                WHEN 'str' THEN format('aq.jms_string(%s)', expression)
                WHEN 'exact' THEN format('aq.jms_long(%s)', expression)
                WHEN 'approx' THEN format('aq.jms_decimal(%s)', expression)
                WHEN 'bool' THEN format('aq.jms_boolean(%s)', expression) END
$$;

-- operand used as a condition
CREATE OR REPLACE FUNCTION aq._condition_jms_boolean(expression text, category text, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF category = 'bool' THEN RETURN expression;
  ELSIF category = 'dyn' THEN RETURN format('aq.jms_truth(%s)', expression);
  ELSIF category = 'null' THEN RETURN 'NULL::boolean';
  END IF;
  PERFORM aq._condition_raise('type', pos, 'expected BOOLEAN, got ' || aq._condition_jms_category_name(category));
  RETURN NULL;
END $$;

-- a comparison; numbers compare as exact decimals (the static SQL of exact and approximate
-- operands is bigint or numeric), strings and booleans only with = and <>, unlike static
-- types are UNKNOWN
CREATE OR REPLACE FUNCTION aq._condition_jms_compare(symbol text, left_expression text, left_category text,
                                                   right_expression text, right_category text, pos integer)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF left_category = 'null' OR right_category = 'null' THEN RETURN 'NULL::boolean'; END IF;
  IF symbol IN ('<', '>', '<=', '>=') AND (left_category IN ('str', 'bool') OR right_category IN ('str', 'bool')) THEN
    RETURN 'NULL::boolean';
  END IF;
  IF left_category = 'dyn' OR right_category = 'dyn' THEN
    RETURN format('aq.jms_%s(%s, %s)',
                  CASE symbol WHEN '=' THEN 'eq' WHEN '<>' THEN 'ne' WHEN '<' THEN 'lt'
                          WHEN '<=' THEN 'le' WHEN '>' THEN 'gt' ELSE 'ge' END,
                  aq._condition_jms_typed(left_expression, left_category), aq._condition_jms_typed(right_expression, right_category));
  END IF;
  IF left_category IN ('exact', 'approx') AND right_category IN ('exact', 'approx') OR left_category = right_category THEN
    RETURN format('(%s %s %s)', left_expression, symbol, right_expression);
  END IF;
  RETURN 'NULL::boolean';
END $$;

-- x [NOT] BETWEEN low AND high: UNKNOWN when an operand is statically a string or a boolean,
-- the runtime check of aq.jms_[not_]between when one is a property, else the expansion
CREATE OR REPLACE FUNCTION aq._condition_jms_between(negated boolean, operand aq._condition_fragment,
                                                   low aq._condition_fragment, high aq._condition_fragment,
                                                   pos integer)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF operand.category IN ('str', 'bool') OR low.category IN ('str', 'bool') OR high.category IN ('str', 'bool') THEN
    RETURN 'NULL::boolean';
  END IF;
  IF 'dyn' IN (operand.category, low.category, high.category) THEN
    RETURN format('aq.jms_%sbetween(%s, %s, %s)', CASE WHEN negated THEN 'not_' ELSE '' END,
                  CASE WHEN operand.category = 'null' THEN 'NULL::jsonb' ELSE aq._condition_jms_typed(operand.sql, operand.category) END,
                  CASE WHEN low.category = 'null' THEN 'NULL::jsonb' ELSE aq._condition_jms_typed(low.sql, low.category) END,
                  CASE WHEN high.category = 'null' THEN 'NULL::jsonb' ELSE aq._condition_jms_typed(high.sql, high.category) END);
  END IF;
  IF negated THEN
    RETURN format('(%s OR %s)', aq._condition_jms_compare('<', operand.sql, operand.category, low.sql, low.category, pos),
                                aq._condition_jms_compare('>', operand.sql, operand.category, high.sql, high.category, pos));
  END IF;
  RETURN format('(%s AND %s)', aq._condition_jms_compare('>=', operand.sql, operand.category, low.sql, low.category, pos),
                               aq._condition_jms_compare('<=', operand.sql, operand.category, high.sql, high.category, pos));
END $$;

CREATE OR REPLACE FUNCTION aq._condition_jms_arithmetic(symbol text, left_expression text, left_category text,
                                                      right_expression text, right_category text, pos integer)
RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF left_category IN ('str', 'bool') OR right_category IN ('str', 'bool') THEN
    PERFORM aq._condition_raise('type', pos,
      format('operator %s needs numeric operands, got %s and %s', symbol,
             aq._condition_jms_category_name(left_category), aq._condition_jms_category_name(right_category)));
  END IF;
  IF left_category = 'null' OR right_category = 'null' THEN RETURN ARRAY['NULL::numeric', 'null']; END IF;
  IF left_category = 'dyn' OR right_category = 'dyn' THEN
    RETURN ARRAY[format('aq.jms_%s(%s, %s)',
                        CASE symbol WHEN '+' THEN 'add' WHEN '-' THEN 'sub' WHEN '*' THEN 'mul' ELSE 'div' END,
                        aq._condition_jms_typed(left_expression, left_category), aq._condition_jms_typed(right_expression, right_category)), 'dyn'];
  END IF;
  -- exact decimal arithmetic as Oracle's NUMBER (5 / 2 = 2.5; a long never overflows into
  -- a dequeue-time error); division by zero is UNKNOWN, a product past 1e1000 an infinity
  RETURN ARRAY[CASE symbol WHEN '*' THEN format('aq.jms_nmul(%s, %s)', left_expression, right_expression)
                       WHEN '/' THEN format('aq.jms_ndiv(%s, %s)', left_expression, right_expression)
                       ELSE format('((%s)::numeric %s (%s)::numeric)', left_expression, symbol, right_expression) END,
               CASE WHEN left_category = 'exact' AND right_category = 'exact' THEN 'exact' ELSE 'approx' END];
END $$;

-- aq._condition_jms's steps for one node each, given its operands already compiled (the
-- recursion stays in aq._condition_jms, so a deep tree takes no more stack than one
-- function's frames per level; literals, the most frequent nodes, it compiles itself);
-- params: the parameters so far, which each one extends.

-- an identifier: a header field, or (a name not reserved to JMS) a user property
CREATE OR REPLACE FUNCTION aq._condition_jms_identifier(node jsonb, has_header boolean, param_number integer,
                                                        param_offset integer, params text[])
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  pos integer := (node->>'pos')::integer;
  name text;
BEGIN
  IF jsonb_array_length(node->'path') > 1 OR (node->'quoted'->>0)::boolean THEN
    SELECT string_agg(e, '.') INTO name FROM jsonb_array_elements_text(node->'path') e;
    PERFORM aq._condition_raise('ident', pos, name);
  END IF;
  name := node->'path'->>0;
  CASE name
  WHEN 'JMSPriority' THEN RETURN aq._condition_new_fragment('m.priority', 'exact', params, NULL);
  WHEN 'JMSCorrelationID' THEN RETURN aq._condition_new_fragment('m.corrid', 'str', params, NULL);
  WHEN 'JMSMessageID' THEN
    RETURN aq._condition_new_fragment('(''ID:'' || upper(encode(m.msgid, ''hex'')))', 'str', params, NULL);
  WHEN 'JMSTimestamp' THEN
    RETURN aq._condition_new_fragment('(floor(extract(epoch FROM m.enq_time) * 1000))::bigint', 'exact', params, NULL);
  WHEN 'JMSRedelivered' THEN RETURN aq._condition_new_fragment('(m.retry_count > 0)', 'bool', params, NULL);
  WHEN 'JMSXDeliveryCount' THEN RETURN aq._condition_new_fragment('(m.retry_count + 1)', 'exact', params, NULL);
  WHEN 'JMSDeliveryMode' THEN
    RETURN aq._condition_new_fragment('aq.jms_delivery_mode(m.delivery_mode)', 'str', params, NULL);
  ELSE
    IF NOT has_header THEN
      PERFORM aq._condition_raise('ident', pos, name);
    END IF;
    CASE name
    WHEN 'JMSType' THEN RETURN aq._condition_new_fragment('(((m.user_data).header).type)', 'str', params, NULL);
    WHEN 'JMSXUserID' THEN RETURN aq._condition_new_fragment('(((m.user_data).header).userid)', 'str', params, NULL);
    WHEN 'JMSXAppID' THEN RETURN aq._condition_new_fragment('(((m.user_data).header).appid)', 'str', params, NULL);
    WHEN 'JMSXGroupID' THEN RETURN aq._condition_new_fragment('(((m.user_data).header).groupid)', 'str', params, NULL);
    WHEN 'JMSXGroupSeq' THEN RETURN aq._condition_new_fragment('(((m.user_data).header).groupseq)', 'exact', params, NULL);
    ELSE
      IF name LIKE 'JMS%' AND name NOT LIKE 'JMSX%' AND name NOT LIKE 'JMS\_%' THEN
        PERFORM aq._condition_raise('ident', pos, name);
      END IF;
      params := params || name;
      RETURN aq._condition_new_fragment(format('(((m.user_data).header).properties -> %s::text)',
                                               aq._condition_param_ref(param_number, param_offset, cardinality(params))),
                                        'dyn', params, NULL);
    END CASE;
  END CASE;
END $f$;

-- JMSMessageID = 'ID:<32 hex>' (or <>, either side) as a comparison of the msgid column
-- itself (index friendly); NULL for any other binary node
CREATE OR REPLACE FUNCTION aq._condition_jms_msgid_compare(node jsonb, param_number integer, param_offset integer,
                                                           params text[])
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  el jsonb;
BEGIN
  IF node->>'operator' NOT IN ('=', '<>') THEN RETURN NULL; END IF;
  IF node->'left'->>'kind' = 'identifier' AND node->'left'->'path' = '["JMSMessageID"]' AND node->'right'->>'kind' = 'literal'
     AND node->'right'->>'type' = 'string' AND node->'right'->>'value' ~ '^ID:[0-9A-Fa-f]{32}$' THEN
    el := node->'right';
  ELSIF node->'right'->>'kind' = 'identifier' AND node->'right'->'path' = '["JMSMessageID"]' AND node->'left'->>'kind' = 'literal'
     AND node->'left'->>'type' = 'string' AND node->'left'->>'value' ~ '^ID:[0-9A-Fa-f]{32}$' THEN
    el := node->'left';
  ELSE
    RETURN NULL;
  END IF;
  params := params || (el->>'value');
  RETURN aq._condition_new_fragment(format('(m.msgid %s decode(substr(%s::text, 4), ''hex''))', node->>'operator',
                                           aq._condition_param_ref(param_number, param_offset, cardinality(params))),
                                    'bool', params, NULL);
END $f$;

-- unary minus or plus (kind) of the operand a
CREATE OR REPLACE FUNCTION aq._condition_jms_sign(kind text, a aq._condition_fragment, pos integer)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
BEGIN
  IF a.category IN ('exact', 'approx') THEN
    RETURN aq._condition_new_fragment(CASE WHEN kind = 'plus' THEN a.sql ELSE format('(-(%s)::numeric)', a.sql) END,
                                      a.category, a.params, NULL);
  ELSIF a.category = 'dyn' THEN
    RETURN aq._condition_new_fragment(format('aq.jms_%s(%s)', CASE kind WHEN 'minus' THEN 'neg' ELSE 'pos' END, a.sql),
                                      'dyn', a.params, NULL);
  ELSIF a.category = 'null' THEN
    RETURN aq._condition_new_fragment('NULL', 'null', a.params, NULL);
  END IF;
  PERFORM aq._condition_raise('type', pos, 'expected NUMBER, got ' || aq._condition_jms_category_name(a.category));
  RETURN NULL;
END $f$;

-- a IS [NOT] NULL
CREATE OR REPLACE FUNCTION aq._condition_jms_is_null(a aq._condition_fragment, negated boolean)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  s text;
BEGIN
  IF a.category = 'dyn' THEN
    s := format('aq.jms_is_null(%s)', a.sql);
    IF negated THEN s := format('(NOT %s)', s); END IF;
  ELSIF a.category = 'null' THEN
    s := CASE WHEN negated THEN 'false' ELSE 'true' END;
  ELSE
    s := format('(%s IS %sNULL)', a.sql, CASE WHEN negated THEN 'NOT ' ELSE '' END);
  END IF;
  RETURN aq._condition_new_fragment(s, 'bool', a.params, NULL);
END $f$;

-- a [NOT] IN (string literals of node's list), the literals as parameters
CREATE OR REPLACE FUNCTION aq._condition_jms_in(node jsonb, a aq._condition_fragment, param_number integer,
                                                param_offset integer)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  params text[] := a.params;
  first integer := cardinality(a.params) + 1;
  el jsonb;
  list text;
  negated boolean := (node->>'negated')::boolean;
BEGIN
  FOR el IN SELECT * FROM jsonb_array_elements(node->'list') LOOP
    IF el->>'kind' <> 'literal' OR el->>'type' <> 'string' THEN
      PERFORM aq._condition_raise('syntax', (el->>'pos')::integer, 'IN needs a list of string literals');
    END IF;
    params := params || (el->>'value');
  END LOOP;
  list := format('(($%s)[%s:%s])::text[]', param_number, param_offset + first, param_offset + cardinality(params));
  RETURN aq._condition_new_fragment(
    CASE WHEN a.category = 'str'
           THEN format(CASE WHEN negated THEN '(%s <> ALL (%s))' ELSE '(%s = ANY (%s))' END, a.sql, list)
         WHEN a.category = 'dyn'
           THEN format(CASE WHEN negated THEN 'aq.jms_not_in(%s, %s)' ELSE 'aq.jms_in(%s, %s)' END, a.sql, list)
         ELSE 'NULL::boolean' END,  -- NULL, or statically not a string: UNKNOWN
    'bool', params, NULL);
END $f$;

-- a [NOT] LIKE pattern [ESCAPE escape] (string literals of node, as parameters)
CREATE OR REPLACE FUNCTION aq._condition_jms_like(node jsonb, a aq._condition_fragment, param_number integer,
                                                  param_offset integer)
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  params text[] := a.params;
  el jsonb := node->'pattern';
  pattern text;
  esc text := '''''';
  negated boolean := (node->>'negated')::boolean;
BEGIN
  IF el->>'kind' <> 'literal' OR el->>'type' <> 'string' THEN
    PERFORM aq._condition_raise('syntax', (el->>'pos')::integer, 'LIKE needs a string literal pattern');
  END IF;
  params := params || (el->>'value');
  pattern := aq._condition_param_ref(param_number, param_offset, cardinality(params)) || '::text';
  IF jsonb_typeof(node->'escape') = 'object' THEN
    el := node->'escape';
    IF el->>'kind' <> 'literal' OR el->>'type' <> 'string' THEN
      PERFORM aq._condition_raise('syntax', (el->>'pos')::integer, 'ESCAPE needs a string literal');
    END IF;
    PERFORM aq._condition_check_like_escape(node->'pattern'->>'value', el->>'value', (el->>'pos')::integer);
    params := params || (el->>'value');
    esc := aq._condition_param_ref(param_number, param_offset, cardinality(params)) || '::text';
  END IF;
  RETURN aq._condition_new_fragment(
    CASE WHEN a.category = 'str'
           THEN format('(%s %sLIKE %s ESCAPE %s)', a.sql, CASE WHEN negated THEN 'NOT ' ELSE '' END, pattern, esc)
         WHEN a.category = 'dyn'
           THEN format('aq.jms_%slike(%s, %s, %s)', CASE WHEN negated THEN 'not_' ELSE '' END, a.sql, pattern, esc)
         ELSE 'NULL::boolean' END,  -- NULL, or statically not a string: UNKNOWN
    'bool', params, NULL);
END $f$;

CREATE OR REPLACE FUNCTION aq._condition_jms(node jsonb, has_header boolean, param_number integer,
                                             param_offset integer, params text[])
RETURNS aq._condition_fragment LANGUAGE plpgsql STABLE AS $f$
DECLARE
  kind text := node->>'kind';
  pos integer := (node->>'pos')::integer;
  a aq._condition_fragment; b aq._condition_fragment; c aq._condition_fragment;
  v text; x text[]; idx integer;
BEGIN
  IF kind = 'literal' THEN  -- NULL and booleans inline, strings and numbers as parameters
    v := node->>'value';
    CASE node->>'type'
    WHEN 'null' THEN RETURN aq._condition_new_fragment('NULL', 'null', params, NULL);
    WHEN 'boolean' THEN RETURN aq._condition_new_fragment(CASE v WHEN 'TRUE' THEN 'true' ELSE 'false' END, 'bool', params, NULL);
    WHEN 'string' THEN
      params := params || v; idx := cardinality(params);
      RETURN aq._condition_new_fragment(aq._condition_param_ref(param_number, param_offset, idx) || '::text', 'str', params, idx);
    WHEN 'integer' THEN
      IF length(ltrim(v, '+-0')) > 19
         OR v::numeric NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
        PERFORM aq._condition_raise('syntax', pos, 'numeric literal out of range');
      END IF;
      params := params || v; idx := cardinality(params);
      RETURN aq._condition_new_fragment(aq._condition_param_ref(param_number, param_offset, idx) || '::bigint', 'exact', params, idx);
    ELSE
      -- a Java double literal (its range is checked), kept as the exact decimal it spells
      BEGIN
        PERFORM v::float8;
      EXCEPTION WHEN others THEN
        PERFORM aq._condition_raise('syntax', pos, 'numeric literal out of range');
      END;
      params := params || v; idx := cardinality(params);
      RETURN aq._condition_new_fragment(aq._condition_param_ref(param_number, param_offset, idx) || '::numeric', 'approx', params, idx);
    END CASE;

  ELSIF kind = 'identifier' THEN
    RETURN aq._condition_jms_identifier(node, has_header, param_number, param_offset, params);

  ELSIF kind = 'function' THEN
    PERFORM aq._condition_raise('syntax', pos, 'function calls are not allowed in JMS selectors');

  ELSIF kind IN ('minus', 'plus') THEN
    a := aq._condition_jms(node->'operand', has_header, param_number, param_offset, params);
    RETURN aq._condition_jms_sign(kind, a, pos);

  ELSIF kind = 'binary' THEN
    v := node->>'operator';
    IF v = '||' THEN
      PERFORM aq._condition_raise('syntax', pos, 'operator || is not allowed in JMS selectors');
    END IF;
    IF 'JMSMessageID' IN (node->'left'->'path'->>0, node->'right'->'path'->>0) THEN
      a := aq._condition_jms_msgid_compare(node, param_number, param_offset, params);
      IF a.sql IS NOT NULL THEN RETURN a; END IF;
    END IF;
    a := aq._condition_jms(node->'left', has_header, param_number, param_offset, params);
    b := aq._condition_jms(node->'right', has_header, param_number, param_offset, a.params);
    IF v IN ('+', '-', '*', '/') THEN
      x := aq._condition_jms_arithmetic(v, a.sql, a.category, b.sql, b.category, pos);
      RETURN aq._condition_new_fragment(x[1], x[2], b.params, NULL);
    END IF;
    RETURN aq._condition_new_fragment(aq._condition_jms_compare(v, a.sql, a.category, b.sql, b.category, pos), 'bool', b.params, NULL);

  ELSIF kind IN ('and', 'or') THEN
    a := aq._condition_jms(node->'left', has_header, param_number, param_offset, params);
    b := aq._condition_jms(node->'right', has_header, param_number, param_offset, a.params);
    RETURN aq._condition_new_fragment(format('(%s %s %s)', aq._condition_jms_boolean(a.sql, a.category, (node->'left'->>'pos')::integer),
                      upper(kind), aq._condition_jms_boolean(b.sql, b.category, (node->'right'->>'pos')::integer)),
               'bool', b.params, NULL);

  ELSIF kind = 'not' THEN
    a := aq._condition_jms(node->'operand', has_header, param_number, param_offset, params);
    RETURN aq._condition_new_fragment(format('(NOT %s)', aq._condition_jms_boolean(a.sql, a.category, (node->'operand'->>'pos')::integer)),
               'bool', a.params, NULL);

  ELSIF kind = 'is_null' THEN
    a := aq._condition_jms(node->'operand', has_header, param_number, param_offset, params);
    RETURN aq._condition_jms_is_null(a, (node->>'negated')::boolean);

  ELSIF kind = 'between' THEN
    a := aq._condition_jms(node->'operand', has_header, param_number, param_offset, params);
    b := aq._condition_jms(node->'low', has_header, param_number, param_offset, a.params);
    c := aq._condition_jms(node->'high', has_header, param_number, param_offset, b.params);
    RETURN aq._condition_new_fragment(aq._condition_jms_between((node->>'negated')::boolean, a, b, c, pos), 'bool', c.params, NULL);

  ELSIF kind = 'in' THEN
    a := aq._condition_jms(node->'operand', has_header, param_number, param_offset, params);
    RETURN aq._condition_jms_in(node, a, param_number, param_offset);

  ELSIF kind = 'like' THEN
    a := aq._condition_jms(node->'operand', has_header, param_number, param_offset, params);
    RETURN aq._condition_jms_like(node, a, param_number, param_offset);
  END IF;
  PERFORM aq._condition_raise('syntax', pos, 'unsupported construct');
  RETURN NULL;
END $f$;
