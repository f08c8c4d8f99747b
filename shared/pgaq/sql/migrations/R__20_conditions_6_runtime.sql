-- Condition compiler, part 6 of 7: the runtime helpers the compiled SQL calls.
--
-- These functions run per message at dequeue and enqueue time, inside conditions that
-- aq.compile_condition (R__20_conditions_7_compile.sql) generated, and inside subscriber
-- rules cached compiled in aq.rule_cache. Their names and signatures are therefore part of
-- stored SQL and of what older services run during a rolling upgrade: never rename one,
-- change its arguments or drop it here; add a new one instead.
--
-- Performance matters here, not in the compiler: most helpers are single-expression
-- LANGUAGE sql functions, IMMUTABLE and PARALLEL SAFE, so the planner inlines them into
-- the dequeue query; none has an EXCEPTION block except aq.jms_fop (a parallel scan cannot
-- start a subtransaction). Keep those attributes when changing one.
--
-- JMS typed values: a user property is jsonb {"type": ..., "value": ...} (or a plain JSON
-- scalar); aq.jms_kind classifies it, aq.jms_num reads it as an exact decimal, and the
-- aq.jms_<operator> helpers give three-valued results (NULL = UNKNOWN) as JMS 1.1 3.8.1
-- and issue 18 define them. R__20_conditions_5_sql_jms.sql says which construct compiles
-- to which helper.

-- text -> numeric, NULL when the text is not a number (never raises)
CREATE OR REPLACE FUNCTION aq.try_numeric(s text) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN s ~ '^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,4})?\s*$' THEN s::numeric END
$$;

-- Oracle SUBSTR semantics (position 0 = 1, negative positions count from the end)
CREATE OR REPLACE FUNCTION aq.ora_substr(s text, p numeric, l numeric DEFAULT NULL) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE st integer; n integer;
BEGIN
  IF s IS NULL OR p IS NULL THEN RETURN NULL; END IF;
  n := length(s);
  -- a position past either end selects nothing (checked in numeric: no integer overflow)
  IF abs(trunc(p)) > n THEN RETURN NULL; END IF;
  st := trunc(p)::integer;
  IF st = 0 THEN st := 1; ELSIF st < 0 THEN st := n + st + 1; END IF;
  IF st < 1 OR st > n THEN RETURN NULL; END IF;
  IF l IS NULL THEN RETURN substr(s, st); END IF;
  IF trunc(l) < 1 THEN RETURN NULL; END IF;
  RETURN substr(s, st, least(trunc(l), 2147483647)::integer);
END $$;

-- JMS typed values: a property is stored as {"type": "int|long|short|byte|float|double|
-- boolean|string", "value": <json>}; a plain JSON scalar is accepted too.
-- kind: 'exact' | 'approx' | 'string' | 'boolean' | NULL (missing / null value)
CREATE OR REPLACE FUNCTION aq.jms_kind(p jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(p) = 'object' THEN
      CASE WHEN coalesce(jsonb_typeof(p->'value'), 'null') = 'null' THEN NULL
      ELSE CASE lower(p->>'type')
        WHEN 'string' THEN 'string' WHEN 'boolean' THEN 'boolean'
        WHEN 'int' THEN 'exact' WHEN 'long' THEN 'exact' WHEN 'short' THEN 'exact' WHEN 'byte' THEN 'exact'
        WHEN 'float' THEN 'approx' WHEN 'double' THEN 'approx'
        ELSE CASE jsonb_typeof(p->'value')
          WHEN 'string' THEN 'string' WHEN 'boolean' THEN 'boolean'
          WHEN 'number' THEN CASE WHEN (p->>'value') ~ '[.eE]' THEN 'approx' ELSE 'exact' END
        END
      END END
    ELSE CASE jsonb_typeof(p)
      WHEN 'string' THEN 'string' WHEN 'boolean' THEN 'boolean'
      WHEN 'number' THEN CASE WHEN (p #>> '{}') ~ '[.eE]' THEN 'approx' ELSE 'exact' END
    END
  END
$$;

-- the value as text
CREATE OR REPLACE FUNCTION aq.jms_val(p jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(p) = 'object' THEN p->>'value' ELSE p #>> '{}' END
$$;

-- wrappers turning statically typed values into typed jsonb values
CREATE OR REPLACE FUNCTION aq.jms_string(v text) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT jsonb_build_object('type', 'string', 'value', v) $$;
CREATE OR REPLACE FUNCTION aq.jms_long(v numeric) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT jsonb_build_object('type', 'long', 'value', v) $$;
CREATE OR REPLACE FUNCTION aq.jms_double(v double precision) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT jsonb_build_object('type', 'double', 'value', v) $$;
CREATE OR REPLACE FUNCTION aq.jms_boolean(v boolean) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT jsonb_build_object('type', 'boolean', 'value', v) $$;
-- an approximate value kept as an exact decimal (NaN and infinities become JSON strings)
CREATE OR REPLACE FUNCTION aq.jms_decimal(v numeric) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT jsonb_build_object('type', 'double', 'value', v) $$;

-- A typed numeric value as an exact decimal, as Oracle's NUMBER holds it. A double may be
-- NaN or an infinity, which JSON spells as a string ("NaN", "INF", "-Infinity", ...); NULL
-- when the value is not a number at all (never raises). Both are single expressions, so
-- the planner inlines them where they are called.
CREATE OR REPLACE FUNCTION aq.jms_num_text(s text) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE lower(btrim(s))
    WHEN 'nan' THEN 'NaN'::numeric
    WHEN 'inf' THEN 'Infinity'::numeric WHEN '+inf' THEN 'Infinity'::numeric
    WHEN 'infinity' THEN 'Infinity'::numeric WHEN '+infinity' THEN 'Infinity'::numeric
    WHEN '-inf' THEN '-Infinity'::numeric WHEN '-infinity' THEN '-Infinity'::numeric
    ELSE aq.try_numeric(s) END
$$;
CREATE OR REPLACE FUNCTION aq.jms_num(p jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(p->'value') = 'number' THEN (p->'value')::numeric
              WHEN jsonb_typeof(p) = 'number' THEN p::numeric
              ELSE aq.jms_num_text(aq.jms_val(p)) END
$$;

-- JMSDeliveryMode of a message row (JMS 1.1 3.8.1.1: 'PERSISTENT' or 'NON_PERSISTENT'):
-- Oracle JMS sends a NON_PERSISTENT message as a buffered one, which the engine keeps in
-- the queue table's companion, whose delivery_mode column says BUFFERED (R__11_buffered)
CREATE OR REPLACE FUNCTION aq.jms_delivery_mode(p_mode text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_mode = 'BUFFERED' THEN 'NON_PERSISTENT' ELSE 'PERSISTENT' END
$$;

-- Three-way compare of two typed values:
--   NULL  either side missing / null, or unlike types (UNKNOWN, issue 18)
--   -1/0/1 numeric order (exact decimals);  30 a NaN (only <> is TRUE, as in Java)
--   10 / 11 same non-numeric type equal / not equal (only = and <> are defined on them)
CREATE OR REPLACE FUNCTION aq.jms_cmp(a jsonb, b jsonb) RETURNS integer
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE ka text := aq.jms_kind(a); kb text := aq.jms_kind(b); x numeric; y numeric;
BEGIN
  IF ka IS NULL OR kb IS NULL THEN RETURN NULL; END IF;
  IF ka IN ('exact', 'approx') AND kb IN ('exact', 'approx') THEN
    x := aq.jms_num(a); y := aq.jms_num(b);
    IF x IS NULL OR y IS NULL THEN RETURN NULL; END IF;
    IF x = 'NaN' OR y = 'NaN' THEN RETURN 30; END IF;   -- numeric NaN equals itself
    RETURN CASE WHEN x < y THEN -1 WHEN x = y THEN 0 ELSE 1 END;
  ELSIF ka <> kb THEN
    RETURN NULL;
  ELSIF ka = 'boolean' THEN
    RETURN CASE WHEN aq.jms_val(a)::boolean = aq.jms_val(b)::boolean THEN 10 ELSE 11 END;
  ELSE
    RETURN CASE WHEN aq.jms_val(a) = aq.jms_val(b) THEN 10 ELSE 11 END;
  END IF;
END $$;

-- the outcome of a three-way compare per operator: NULL (UNKNOWN) for an ordering of
-- strings or booleans and for unlike types
CREATE OR REPLACE FUNCTION aq.jms_eq(a jsonb, b jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_cmp(a, b) IN (0, 10) $$;
CREATE OR REPLACE FUNCTION aq.jms_ne(a jsonb, b jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_cmp(a, b) IN (-1, 1, 11, 30) $$;
CREATE OR REPLACE FUNCTION aq.jms_lt(a jsonb, b jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE aq.jms_cmp(a, b) WHEN -1 THEN true WHEN 0 THEN false WHEN 1 THEN false WHEN 30 THEN false END $$;
CREATE OR REPLACE FUNCTION aq.jms_le(a jsonb, b jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE aq.jms_cmp(a, b) WHEN -1 THEN true WHEN 0 THEN true WHEN 1 THEN false WHEN 30 THEN false END $$;
CREATE OR REPLACE FUNCTION aq.jms_gt(a jsonb, b jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE aq.jms_cmp(a, b) WHEN 1 THEN true WHEN 0 THEN false WHEN -1 THEN false WHEN 30 THEN false END $$;
CREATE OR REPLACE FUNCTION aq.jms_ge(a jsonb, b jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE aq.jms_cmp(a, b) WHEN 1 THEN true WHEN 0 THEN true WHEN -1 THEN false WHEN 30 THEN false END $$;

-- x [NOT] BETWEEN lo AND hi over typed values: UNKNOWN when an operand that is not NULL is
-- not a number (issue 18: BETWEEN with operands of different types), else the
-- (x >= lo AND x <= hi) / (x < lo OR x > hi) of JMS 1.1 in three-valued logic, where a
-- comparison with NaN is FALSE as in Java
CREATE OR REPLACE FUNCTION aq.jms_between3(a jsonb, lo jsonb, hi jsonb, neg boolean) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE ka text := aq.jms_kind(a); kl text := aq.jms_kind(lo); kh text := aq.jms_kind(hi);
        x numeric; l numeric; h numeric; c1 boolean; c2 boolean;
BEGIN
  IF ka NOT IN ('exact', 'approx') OR kl NOT IN ('exact', 'approx') OR kh NOT IN ('exact', 'approx') THEN
    RETURN NULL;
  END IF;
  x := aq.jms_num(a); l := aq.jms_num(lo); h := aq.jms_num(hi);
  IF x IS NULL OR l IS NULL THEN c1 := NULL;
  ELSIF x = 'NaN' OR l = 'NaN' THEN c1 := false;
  ELSIF neg THEN c1 := x < l; ELSE c1 := x >= l; END IF;
  IF x IS NULL OR h IS NULL THEN c2 := NULL;
  ELSIF x = 'NaN' OR h = 'NaN' THEN c2 := false;
  ELSIF neg THEN c2 := x > h; ELSE c2 := x <= h; END IF;
  IF neg THEN RETURN c1 OR c2; END IF;
  RETURN c1 AND c2;
END $$;
CREATE OR REPLACE FUNCTION aq.jms_between(a jsonb, lo jsonb, hi jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_between3(a, lo, hi, false) $$;
CREATE OR REPLACE FUNCTION aq.jms_not_between(a jsonb, lo jsonb, hi jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_between3(a, lo, hi, true) $$;

-- Floating-point arithmetic where overflow or underflow (an error in PostgreSQL, an
-- infinity or zero in Java) is unknown, as division by zero is: a selector never fails at
-- dequeue time because of the values it meets.
CREATE OR REPLACE FUNCTION aq.jms_fop(op text, u double precision, v double precision)
RETURNS double precision LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN CASE op WHEN '+' THEN u + v WHEN '-' THEN u - v WHEN '*' THEN u * v
                 ELSE u / nullif(v, 0) END;
EXCEPTION WHEN numeric_value_out_of_range THEN
  RETURN NULL;
END $$;
-- one per operator, for the compiled SQL (which holds no string constants)
CREATE OR REPLACE FUNCTION aq.jms_fadd(u double precision, v double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_fop('+', u, v) $$;
CREATE OR REPLACE FUNCTION aq.jms_fsub(u double precision, v double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_fop('-', u, v) $$;
CREATE OR REPLACE FUNCTION aq.jms_fmul(u double precision, v double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_fop('*', u, v) $$;
CREATE OR REPLACE FUNCTION aq.jms_fdiv(u double precision, v double precision) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_fop('/', u, v) $$;

-- Arithmetic on typed values in exact decimal, as Oracle's NUMBER (5 / 2 = 2.5); a
-- non-numeric or NULL operand, or division by zero, gives NULL (unknown). A result past
-- 1e1000 in magnitude (far beyond a double) becomes an infinity, as a double's overflow
-- does in Java, so no chain of operations reaches numeric's limits: a selector never fails
-- at dequeue time because of the values it meets (and no subtransaction is needed, which a
-- parallel query could not start).
CREATE OR REPLACE FUNCTION aq.jms_arith(op text, a jsonb, b jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE ka text := aq.jms_kind(a); kb text := aq.jms_kind(b); x numeric; y numeric; r numeric;
BEGIN
  IF ka NOT IN ('exact', 'approx') OR kb NOT IN ('exact', 'approx') OR ka IS NULL OR kb IS NULL THEN
    RETURN NULL;
  END IF;
  x := aq.jms_num(a); y := aq.jms_num(b);
  IF x IS NULL OR y IS NULL THEN RETURN NULL; END IF;
  r := CASE op WHEN '+' THEN x + y WHEN '-' THEN x - y WHEN '*' THEN x * y
               ELSE x / nullif(y, 0) END;
  IF r IS NULL THEN RETURN NULL; END IF;
  IF r > 1e1000 AND r <> 'NaN' THEN r := 'Infinity';
  ELSIF r < -1e1000 THEN r := '-Infinity';
  END IF;
  IF ka = 'exact' AND kb = 'exact' THEN RETURN aq.jms_long(r); END IF;
  RETURN aq.jms_decimal(r);
END $$;

-- * and / of statically numeric operands, with the same bound as aq.jms_arith (+ and - are
-- inline: they add a digit at most)
CREATE OR REPLACE FUNCTION aq.jms_nmul(a numeric, b numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE r numeric := a * b;
BEGIN
  IF r > 1e1000 AND r <> 'NaN' THEN RETURN 'Infinity'; ELSIF r < -1e1000 THEN RETURN '-Infinity'; END IF;
  RETURN r;
END $$;
CREATE OR REPLACE FUNCTION aq.jms_ndiv(a numeric, b numeric) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE r numeric := a / nullif(b, 0);
BEGIN
  IF r > 1e1000 AND r <> 'NaN' THEN RETURN 'Infinity'; ELSIF r < -1e1000 THEN RETURN '-Infinity'; END IF;
  RETURN r;
END $$;

CREATE OR REPLACE FUNCTION aq.jms_add(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_arith('+', a, b) $$;
CREATE OR REPLACE FUNCTION aq.jms_sub(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_arith('-', a, b) $$;
CREATE OR REPLACE FUNCTION aq.jms_mul(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_arith('*', a, b) $$;
CREATE OR REPLACE FUNCTION aq.jms_div(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_arith('/', a, b) $$;
CREATE OR REPLACE FUNCTION aq.jms_neg(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_arith('-', aq.jms_long(0), a) $$;
-- unary plus: the value itself when numeric, else unknown
CREATE OR REPLACE FUNCTION aq.jms_pos(a jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT aq.jms_arith('+', aq.jms_long(0), a) $$;

CREATE OR REPLACE FUNCTION aq.jms_is_null(a jsonb) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN RETURN aq.jms_kind(a) IS NULL; END $$;

-- a property used as a condition: its value when boolean, else unknown
CREATE OR REPLACE FUNCTION aq.jms_truth(a jsonb) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  IF aq.jms_kind(a) = 'boolean' THEN RETURN aq.jms_val(a)::boolean; END IF;
  RETURN NULL;
END $$;

-- LIKE and IN on a typed value: UNKNOWN unless it is a string (JMS 1.1: their identifier
-- has a String value; a NULL one makes them unknown)
CREATE OR REPLACE FUNCTION aq.jms_like(a jsonb, pat text, esc text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE k text := aq.jms_kind(a);
BEGIN
  IF k IS NULL OR pat IS NULL OR k <> 'string' THEN RETURN NULL; END IF;
  RETURN aq.jms_val(a) LIKE pat ESCAPE esc;
END $$;

CREATE OR REPLACE FUNCTION aq.jms_not_like(a jsonb, pat text, esc text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE k text := aq.jms_kind(a);
BEGIN
  IF k IS NULL OR pat IS NULL OR k <> 'string' THEN RETURN NULL; END IF;
  RETURN aq.jms_val(a) NOT LIKE pat ESCAPE esc;
END $$;

CREATE OR REPLACE FUNCTION aq.jms_in(a jsonb, list text[]) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE k text := aq.jms_kind(a);
BEGIN
  IF k IS NULL OR k <> 'string' THEN RETURN NULL; END IF;
  RETURN aq.jms_val(a) = ANY (list);
END $$;

CREATE OR REPLACE FUNCTION aq.jms_not_in(a jsonb, list text[]) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE k text := aq.jms_kind(a);
BEGIN
  IF k IS NULL OR k <> 'string' THEN RETURN NULL; END IF;
  RETURN aq.jms_val(a) <> ALL (list);
END $$;
