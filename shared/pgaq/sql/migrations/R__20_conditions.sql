-- Condition compiler: AQ dequeue conditions, AQ subscriber rules and JMS message selectors.
--
--   aq.compile_condition(p_text, p_dialect 'AQ'|'JMS', p_payload regtype,
--                        p_param integer DEFAULT 1, p_offset integer DEFAULT 0)
--     RETURNS aq.compiled_condition (sql text, params text[])
--
-- The text is tokenized, parsed (recursive descent / precedence climbing) into a jsonb AST
-- and compiled into a boolean SQL expression over the message row alias `m`.  Nothing the
-- user wrote is ever pasted into the SQL: identifiers are resolved against a fixed
-- whitelist or against pg_attribute of the payload type and emitted with %I; every literal
-- (and every JMS property name) becomes an element of `params`, referenced as
-- `(($<p_param>)[<p_offset+i>])` followed by a cast.  The only constants that appear in the
-- SQL are chosen by the compiler itself (TRUE, FALSE, NULL, 'hex', '' as "no escape").
--
-- Empty / blank / NULL condition: returns NULL (callers treat that as TRUE).
--
-- Errors (message always carries a 1-based character position into p_text):
--   42601  ORA-00936: invalid condition at position N: <detail>   (syntax; also JMS-only
--          restrictions such as "IN needs string literals", bad ESCAPE)
--   42601  ORA-00909: invalid number of arguments at position N: <function>
--   42703  ORA-00904: invalid identifier "<name>" at position N   (unknown column, payload
--          attribute, function, or JMS header)
--   42702  ORA-00918: column ambiguously defined: "<name>" at position N
--   42804  ORA-00932: inconsistent datatypes at position N: <detail>  (type errors)
--   22023  bad p_dialect / p_param / p_offset
--
-- JMS design notes (JMS 1.1 3.8.1.1, with issue 18's reading of it):
--   * every operand has a static category: str, exact (bigint/numeric), approx (numeric),
--     bool, null, or dyn (a user property: jsonb {"type": ..., "value": ...}).  Statically
--     typed operations compile to plain SQL (index friendly); anything involving a dyn
--     operand compiles to a call of the aq.jms_* runtime helpers, which check the runtime
--     type.
--   * unknown identifiers starting with "JMS" are errors, except JMSX* and JMS_* ones,
--     which are looked up as user properties (provider-specific properties).
--   * numbers are exact decimals, as Oracle's NUMBER holds JMS numeric properties: exact and
--     approximate values compare and compute in numeric, so an int 5 divided by 2 is 2.5 and
--     0.1 + 0.2 = 0.3.  Division by zero is UNKNOWN; a double property's NaN compares as
--     Java's does (only <> is TRUE), its infinities as the largest and smallest values.
--   * strings and booleans compare only with = and <>: < <= > >= on them is UNKNOWN, and so
--     is any comparison of unlike types (a string with a number or a boolean, a boolean with
--     a number), BETWEEN with a non-numeric operand, IN / LIKE on a value that is not a
--     string; comparisons involving NULL / a missing property are UNKNOWN too.  UNKNOWN,
--     not FALSE: NOT of it does not select the message either.  Statically unlike operands
--     compile to NULL::boolean rather than an error.
--   * arithmetic on a statically string or boolean operand is a type error (ORA-00932); on a
--     property whose runtime value is not numeric it is UNKNOWN.
--   * a property used directly as a condition is UNKNOWN unless its value is boolean.
--   * x BETWEEN a AND b is (x >= a AND x <= b), NOT BETWEEN (x < a OR x > b), NOT IN is x <>
--     each element, exactly as JMS defines them (three-valued with NULL operands).
--   * white space between tokens is what Java's Character.isWhitespace accepts (also in the
--     AQ dialect, where it is a superset of SQL's).
--   * JMSDeliveryMode is the constant 'PERSISTENT'.
-- AQ design notes:
--   * number vs string column compares numerically via aq.try_numeric (non numbers are
--     UNKNOWN, never a runtime error); a string literal compared with a number, timestamp
--     or boolean is converted at compile time (ORA-00932 if it does not convert).
--   * LIKE without ESCAPE has no escape character (Oracle semantics, not PostgreSQL's \).
--   * + - * / are computed in numeric (no integer overflow at dequeue time); a / b is exact
--     division; division by zero yields NULL.
--   * || follows Oracle (NULL behaves as '').

DO $$
BEGIN
  IF to_regtype('aq.compiled_condition') IS NULL THEN
    CREATE TYPE aq.compiled_condition AS (sql text, params text[]);
  END IF;
  -- internal types of the compiler
  IF to_regtype('aq._cond_tok') IS NULL THEN
    CREATE TYPE aq._cond_tok AS (k text, v text, p integer);
  END IF;
  IF to_regtype('aq._cond_pr') IS NULL THEN
    CREATE TYPE aq._cond_pr AS (node jsonb, nxt integer);
  END IF;
  IF to_regtype('aq._cond_cr') IS NULL THEN
    CREATE TYPE aq._cond_cr AS (sql text, cat text, prm text[], li integer);
  END IF;
END $$;

------------------------------------------------------------------------------------------
-- Runtime helpers (used by the generated SQL)
------------------------------------------------------------------------------------------

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

------------------------------------------------------------------------------------------
-- Compiler internals
------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION aq._cond_raise(p_code text, p_pos integer, p_detail text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE p_code
  WHEN 'syntax' THEN
    RAISE EXCEPTION USING ERRCODE = '42601',
      MESSAGE = format('ORA-00936: invalid condition at position %s: %s', p_pos, p_detail);
  WHEN 'ident' THEN
    RAISE EXCEPTION USING ERRCODE = '42703',
      MESSAGE = format('ORA-00904: invalid identifier "%s" at position %s', p_detail, p_pos);
  WHEN 'ambiguous' THEN
    RAISE EXCEPTION USING ERRCODE = '42702',
      MESSAGE = format('ORA-00918: column ambiguously defined: "%s" at position %s', p_detail, p_pos);
  WHEN 'args' THEN
    RAISE EXCEPTION USING ERRCODE = '42601',
      MESSAGE = format('ORA-00909: invalid number of arguments at position %s: %s', p_pos, p_detail);
  ELSE
    RAISE EXCEPTION USING ERRCODE = '42804',
      MESSAGE = format('ORA-00932: inconsistent datatypes at position %s: %s', p_pos, p_detail);
  END CASE;
END $$;

CREATE OR REPLACE FUNCTION aq._cond_tokenize(p_text text) RETURNS aq._cond_tok[]
LANGUAGE sql IMMUTABLE AS $f$
  SELECT coalesce(array_agg(ROW(
           CASE WHEN m[3] IS NOT NULL THEN 'str'
                WHEN m[4] IS NOT NULL THEN 'qid'
                WHEN m[5] IS NOT NULL THEN 'num'
                WHEN m[6] IS NOT NULL THEN
                  CASE WHEN upper(m[6]) IN ('AND', 'OR', 'NOT', 'BETWEEN', 'LIKE', 'IN', 'IS',
                                            'NULL', 'TRUE', 'FALSE', 'ESCAPE')
                       THEN 'kw' ELSE 'id' END
                WHEN m[7] IS NOT NULL THEN 'op'
                ELSE 'bad' END,
           CASE WHEN m[6] IS NOT NULL AND upper(m[6]) IN ('AND', 'OR', 'NOT', 'BETWEEN', 'LIKE', 'IN',
                                                           'IS', 'NULL', 'TRUE', 'FALSE', 'ESCAPE')
                THEN upper(m[6]) ELSE m[1] END,
           pos)::aq._cond_tok ORDER BY n), '{}')
         || ROW('eof', NULL, length(p_text) + 1)::aq._cond_tok
  FROM (SELECT r.m, r.n,
               (sum(length(r.m[1])) OVER (ORDER BY r.n) - length(r.m[1]) + 1)::integer AS pos
          FROM regexp_matches(p_text,
                 $re$(([ \t\n\v\f\r\u001C-\u001F\u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]+)|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|([[:alpha:]_$][[:alnum:]_$#]*)|(<>|!=|<=|>=|\|\||[-+*/=<>(),.])|(.))$re$,
                 'g') WITH ORDINALITY AS r(m, n)) s
  WHERE m[2] IS NULL
$f$;

CREATE OR REPLACE FUNCTION aq._cond_describe(t aq._cond_tok) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE t.k WHEN 'eof' THEN 'end of condition'
                  WHEN 'str' THEN 'string literal'
                  ELSE format('"%s"', t.v) END
$$;

-- Parser: precedence climbing.  Levels: OR 1, AND 2, NOT 3, comparison/BETWEEN/LIKE/IN/IS 4
-- (non associative), + - || 5, * / 6, unary + - 7.
CREATE OR REPLACE FUNCTION aq._cond_parse(t aq._cond_tok[], i integer, min_prec integer, depth integer)
RETURNS aq._cond_pr LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
  tk aq._cond_tok;
  n jsonb; r aq._cond_pr; r2 aq._cond_pr;
  prec integer; op text; neg boolean; cmp_done boolean := false; pos integer; v text;
  parts text[]; quoted boolean[]; args jsonb; esc jsonb;
BEGIN
  tk := t[i];
  IF depth > 100 THEN
    PERFORM aq._cond_raise('syntax', tk.p, 'condition is nested too deeply');
  END IF;
  IF tk.k = 'kw' AND tk.v = 'NOT' THEN
    IF min_prec > 3 THEN
      PERFORM aq._cond_raise('syntax', tk.p, 'expected an operand, found "NOT"');
    END IF;
    r := aq._cond_parse(t, i + 1, 3, depth + 1);
    n := jsonb_build_object('k', 'not', 'e', r.node, 'p', tk.p);
    i := r.nxt;
  ELSIF tk.k = 'op' AND tk.v IN ('+', '-') THEN
    r := aq._cond_parse(t, i + 1, 7, depth + 1);
    i := r.nxt;
    IF r.node->>'k' = 'lit' AND r.node->>'t' IN ('int', 'dec', 'approx') AND NOT r.node ? 's' THEN
      v := r.node->>'v';
      IF tk.v = '-' THEN v := '-' || v; END IF;
      n := jsonb_build_object('k', 'lit', 't', r.node->>'t', 'v', v, 'p', tk.p, 's', true);
    ELSE
      n := jsonb_build_object('k', CASE tk.v WHEN '-' THEN 'neg' ELSE 'pos' END, 'e', r.node, 'p', tk.p);
    END IF;
  ELSIF tk.k = 'num' THEN
    n := jsonb_build_object('k', 'lit',
           't', CASE WHEN tk.v ~ '[eE]' THEN 'approx' WHEN strpos(tk.v, '.') > 0 THEN 'dec' ELSE 'int' END,
           'v', tk.v, 'p', tk.p);
    i := i + 1;
  ELSIF tk.k = 'str' THEN
    IF tk.v !~ '^''(?:[^'']|'''')*''$' THEN
      PERFORM aq._cond_raise('syntax', tk.p, 'string literal not properly terminated');
    END IF;
    n := jsonb_build_object('k', 'lit', 't', 'str',
           'v', replace(substr(tk.v, 2, length(tk.v) - 2), '''''', ''''), 'p', tk.p);
    i := i + 1;
  ELSIF tk.k = 'kw' AND tk.v IN ('TRUE', 'FALSE') THEN
    n := jsonb_build_object('k', 'lit', 't', 'bool', 'v', tk.v, 'p', tk.p);
    i := i + 1;
  ELSIF tk.k = 'kw' AND tk.v = 'NULL' THEN
    n := jsonb_build_object('k', 'lit', 't', 'null', 'p', tk.p);
    i := i + 1;
  ELSIF tk.k = 'op' AND tk.v = '(' THEN
    r := aq._cond_parse(t, i + 1, 1, depth + 1);
    i := r.nxt;
    IF t[i].k <> 'op' OR t[i].v <> ')' THEN
      PERFORM aq._cond_raise('syntax', t[i].p, 'expected ")", found ' || aq._cond_describe(t[i]));
    END IF;
    n := r.node;
    i := i + 1;
  ELSIF tk.k IN ('id', 'qid') THEN
    pos := tk.p;
    parts := '{}'; quoted := '{}';
    LOOP
      tk := t[i];
      IF tk.k = 'qid' THEN
        IF tk.v !~ '^"(?:[^"]|"")+"$' THEN
          PERFORM aq._cond_raise('syntax', tk.p, 'invalid quoted identifier');
        END IF;
        parts := parts || replace(substr(tk.v, 2, length(tk.v) - 2), '""', '"');
        quoted := quoted || true;
      ELSIF tk.k = 'id' THEN
        parts := parts || tk.v;
        quoted := quoted || false;
      ELSE
        PERFORM aq._cond_raise('syntax', tk.p, 'expected identifier, found ' || aq._cond_describe(tk));
      END IF;
      i := i + 1;
      EXIT WHEN NOT (t[i].k = 'op' AND t[i].v = '.');
      i := i + 1;
    END LOOP;
    IF t[i].k = 'op' AND t[i].v = '(' THEN
      IF cardinality(parts) > 1 OR quoted[1] THEN
        PERFORM aq._cond_raise('syntax', t[i].p, 'unexpected "("');
      END IF;
      args := '[]';
      i := i + 1;
      IF NOT (t[i].k = 'op' AND t[i].v = ')') THEN
        LOOP
          r := aq._cond_parse(t, i, 1, depth + 1);
          args := args || jsonb_build_array(r.node);
          i := r.nxt;
          EXIT WHEN NOT (t[i].k = 'op' AND t[i].v = ',');
          i := i + 1;
        END LOOP;
        IF NOT (t[i].k = 'op' AND t[i].v = ')') THEN
          PERFORM aq._cond_raise('syntax', t[i].p, 'expected ")", found ' || aq._cond_describe(t[i]));
        END IF;
      END IF;
      i := i + 1;
      n := jsonb_build_object('k', 'fn', 'n', upper(parts[1]), 'raw', parts[1], 'a', args, 'p', pos);
    ELSE
      n := jsonb_build_object('k', 'id', 'path', to_jsonb(parts), 'q', to_jsonb(quoted), 'p', pos);
    END IF;
  ELSE
    PERFORM aq._cond_raise('syntax', tk.p, 'expected an operand, found ' || aq._cond_describe(tk));
  END IF;

  LOOP
    tk := t[i];
    op := NULL; neg := false;
    IF tk.k = 'kw' THEN
      IF tk.v = 'OR' THEN prec := 1; op := 'OR';
      ELSIF tk.v = 'AND' THEN prec := 2; op := 'AND';
      ELSIF tk.v IN ('IS', 'BETWEEN', 'LIKE', 'IN') THEN prec := 4; op := tk.v;
      ELSIF tk.v = 'NOT' AND t[i + 1].k = 'kw' AND t[i + 1].v IN ('BETWEEN', 'LIKE', 'IN') THEN
        prec := 4; op := t[i + 1].v; neg := true;
      END IF;
    ELSIF tk.k = 'op' THEN
      IF tk.v IN ('=', '<>', '!=', '<', '>', '<=', '>=') THEN prec := 4; op := tk.v;
      ELSIF tk.v IN ('+', '-', '||') THEN prec := 5; op := tk.v;
      ELSIF tk.v IN ('*', '/') THEN prec := 6; op := tk.v;
      END IF;
    END IF;
    EXIT WHEN op IS NULL OR prec < min_prec;
    IF prec = 4 AND cmp_done THEN
      PERFORM aq._cond_raise('syntax', tk.p, 'unexpected ' || aq._cond_describe(tk));
    END IF;
    pos := tk.p;
    i := i + CASE WHEN neg THEN 2 ELSE 1 END;
    IF op IN ('OR', 'AND') THEN
      r := aq._cond_parse(t, i, prec + 1, depth + 1);
      n := jsonb_build_object('k', lower(op), 'l', n, 'r', r.node, 'p', pos);
      i := r.nxt;
    ELSIF op = 'IS' THEN
      IF t[i].k = 'kw' AND t[i].v = 'NOT' THEN neg := true; i := i + 1; END IF;
      IF NOT (t[i].k = 'kw' AND t[i].v = 'NULL') THEN
        PERFORM aq._cond_raise('syntax', t[i].p, 'expected NULL, found ' || aq._cond_describe(t[i]));
      END IF;
      i := i + 1;
      n := jsonb_build_object('k', 'isnull', 'neg', neg, 'e', n, 'p', pos);
    ELSIF op = 'BETWEEN' THEN
      r := aq._cond_parse(t, i, 5, depth + 1);
      i := r.nxt;
      IF NOT (t[i].k = 'kw' AND t[i].v = 'AND') THEN
        PERFORM aq._cond_raise('syntax', t[i].p, 'expected AND, found ' || aq._cond_describe(t[i]));
      END IF;
      r2 := aq._cond_parse(t, i + 1, 5, depth + 1);
      i := r2.nxt;
      n := jsonb_build_object('k', 'between', 'neg', neg, 'e', n, 'lo', r.node, 'hi', r2.node, 'p', pos);
    ELSIF op = 'LIKE' THEN
      r := aq._cond_parse(t, i, 5, depth + 1);
      i := r.nxt;
      esc := NULL;
      IF t[i].k = 'kw' AND t[i].v = 'ESCAPE' THEN
        r2 := aq._cond_parse(t, i + 1, 5, depth + 1);
        i := r2.nxt;
        esc := r2.node;
      END IF;
      n := jsonb_build_object('k', 'like', 'neg', neg, 'e', n, 'pat', r.node, 'esc', esc, 'p', pos);
    ELSIF op = 'IN' THEN
      IF NOT (t[i].k = 'op' AND t[i].v = '(') THEN
        PERFORM aq._cond_raise('syntax', t[i].p, 'expected "(", found ' || aq._cond_describe(t[i]));
      END IF;
      i := i + 1;
      args := '[]';
      LOOP
        r := aq._cond_parse(t, i, 5, depth + 1);
        args := args || jsonb_build_array(r.node);
        i := r.nxt;
        EXIT WHEN NOT (t[i].k = 'op' AND t[i].v = ',');
        i := i + 1;
      END LOOP;
      IF NOT (t[i].k = 'op' AND t[i].v = ')') THEN
        PERFORM aq._cond_raise('syntax', t[i].p, 'expected ")", found ' || aq._cond_describe(t[i]));
      END IF;
      i := i + 1;
      n := jsonb_build_object('k', 'in', 'neg', neg, 'e', n, 'list', args, 'p', pos);
    ELSE
      r := aq._cond_parse(t, i, CASE WHEN prec = 4 THEN 5 ELSE prec + 1 END, depth + 1);
      n := jsonb_build_object('k', 'bin', 'o', CASE op WHEN '!=' THEN '<>' ELSE op END,
                              'l', n, 'r', r.node, 'p', pos);
      i := r.nxt;
    END IF;
    IF prec = 4 THEN cmp_done := true; END IF;
  END LOOP;
  RETURN ROW(n, i)::aq._cond_pr;
END $f$;

CREATE OR REPLACE FUNCTION aq._cond_mk(s text, c text, prm text[], li integer) RETURNS aq._cond_cr
LANGUAGE sql IMMUTABLE AS $$ SELECT ROW(s, c, prm, li)::aq._cond_cr $$;

CREATE OR REPLACE FUNCTION aq._cond_ref(pp integer, po integer, idx integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT format('(($%s)[%s])', pp, po + idx) $$;

-- check a literal LIKE pattern against its escape character
CREATE OR REPLACE FUNCTION aq._cond_check_like(pat text, esc text, pos integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE j integer := 1; c text;
BEGIN
  IF esc IS NULL THEN RETURN; END IF;
  IF length(esc) <> 1 THEN
    PERFORM aq._cond_raise('syntax', pos, 'ESCAPE needs a string literal of exactly one character');
  END IF;
  WHILE j <= length(pat) LOOP
    IF substr(pat, j, 1) = esc THEN
      c := substr(pat, j + 1, 1);
      IF c NOT IN ('%', '_', esc) OR c = '' THEN
        PERFORM aq._cond_raise('syntax', pos, 'escape character must be followed by %, _ or itself');
      END IF;
      j := j + 2;
    ELSE
      j := j + 1;
    END IF;
  END LOOP;
END $$;

------------------------------------------------------------------------------------------
-- JMS dialect
------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION aq._cond_jms_catname(c text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE c WHEN 'str' THEN 'STRING' WHEN 'exact' THEN 'NUMBER' WHEN 'approx' THEN 'NUMBER'
                WHEN 'bool' THEN 'BOOLEAN' WHEN 'null' THEN 'NULL' ELSE 'PROPERTY' END
$$;

CREATE OR REPLACE FUNCTION aq._cond_jms_wrap(s text, c text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE c WHEN 'dyn' THEN s
                WHEN 'str' THEN format('aq.jms_string(%s)', s)
                WHEN 'exact' THEN format('aq.jms_long(%s)', s)
                WHEN 'approx' THEN format('aq.jms_decimal(%s)', s)
                WHEN 'bool' THEN format('aq.jms_boolean(%s)', s) END
$$;

-- operand used as a condition
CREATE OR REPLACE FUNCTION aq._cond_jms_bool(s text, c text, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF c = 'bool' THEN RETURN s;
  ELSIF c = 'dyn' THEN RETURN format('aq.jms_truth(%s)', s);
  ELSIF c = 'null' THEN RETURN 'NULL::boolean';
  END IF;
  PERFORM aq._cond_raise('type', pos, 'expected BOOLEAN, got ' || aq._cond_jms_catname(c));
  RETURN NULL;
END $$;

-- a comparison; numbers compare as exact decimals (the static SQL of exact and approximate
-- operands is bigint or numeric), strings and booleans only with = and <>, unlike static
-- types are UNKNOWN
CREATE OR REPLACE FUNCTION aq._cond_jms_cmp(op text, a text, ac text, b text, bc text, pos integer)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF ac = 'null' OR bc = 'null' THEN RETURN 'NULL::boolean'; END IF;
  IF op IN ('<', '>', '<=', '>=') AND (ac IN ('str', 'bool') OR bc IN ('str', 'bool')) THEN
    RETURN 'NULL::boolean';
  END IF;
  IF ac = 'dyn' OR bc = 'dyn' THEN
    RETURN format('aq.jms_%s(%s, %s)',
                  CASE op WHEN '=' THEN 'eq' WHEN '<>' THEN 'ne' WHEN '<' THEN 'lt'
                          WHEN '<=' THEN 'le' WHEN '>' THEN 'gt' ELSE 'ge' END,
                  aq._cond_jms_wrap(a, ac), aq._cond_jms_wrap(b, bc));
  END IF;
  IF ac IN ('exact', 'approx') AND bc IN ('exact', 'approx') OR ac = bc THEN
    RETURN format('(%s %s %s)', a, op, b);
  END IF;
  RETURN 'NULL::boolean';
END $$;

-- x [NOT] BETWEEN lo AND hi: UNKNOWN when an operand is statically a string or a boolean,
-- the runtime check of aq.jms_[not_]between when one is a property, else the expansion
CREATE OR REPLACE FUNCTION aq._cond_jms_between(neg boolean, x aq._cond_cr, lo aq._cond_cr,
                                                hi aq._cond_cr, pos integer)
RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF x.cat IN ('str', 'bool') OR lo.cat IN ('str', 'bool') OR hi.cat IN ('str', 'bool') THEN
    RETURN 'NULL::boolean';
  END IF;
  IF 'dyn' IN (x.cat, lo.cat, hi.cat) THEN
    RETURN format('aq.jms_%sbetween(%s, %s, %s)', CASE WHEN neg THEN 'not_' ELSE '' END,
                  CASE WHEN x.cat = 'null' THEN 'NULL::jsonb' ELSE aq._cond_jms_wrap(x.sql, x.cat) END,
                  CASE WHEN lo.cat = 'null' THEN 'NULL::jsonb' ELSE aq._cond_jms_wrap(lo.sql, lo.cat) END,
                  CASE WHEN hi.cat = 'null' THEN 'NULL::jsonb' ELSE aq._cond_jms_wrap(hi.sql, hi.cat) END);
  END IF;
  IF neg THEN
    RETURN format('(%s OR %s)', aq._cond_jms_cmp('<', x.sql, x.cat, lo.sql, lo.cat, pos),
                                aq._cond_jms_cmp('>', x.sql, x.cat, hi.sql, hi.cat, pos));
  END IF;
  RETURN format('(%s AND %s)', aq._cond_jms_cmp('>=', x.sql, x.cat, lo.sql, lo.cat, pos),
                               aq._cond_jms_cmp('<=', x.sql, x.cat, hi.sql, hi.cat, pos));
END $$;

CREATE OR REPLACE FUNCTION aq._cond_jms_arith(op text, a text, ac text, b text, bc text, pos integer)
RETURNS text[] LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF ac IN ('str', 'bool') OR bc IN ('str', 'bool') THEN
    PERFORM aq._cond_raise('type', pos,
      format('operator %s needs numeric operands, got %s and %s', op,
             aq._cond_jms_catname(ac), aq._cond_jms_catname(bc)));
  END IF;
  IF ac = 'null' OR bc = 'null' THEN RETURN ARRAY['NULL::numeric', 'null']; END IF;
  IF ac = 'dyn' OR bc = 'dyn' THEN
    RETURN ARRAY[format('aq.jms_%s(%s, %s)',
                        CASE op WHEN '+' THEN 'add' WHEN '-' THEN 'sub' WHEN '*' THEN 'mul' ELSE 'div' END,
                        aq._cond_jms_wrap(a, ac), aq._cond_jms_wrap(b, bc)), 'dyn'];
  END IF;
  -- exact decimal arithmetic as Oracle's NUMBER (5 / 2 = 2.5; a long never overflows into
  -- a dequeue-time error); division by zero is UNKNOWN, a product past 1e1000 an infinity
  RETURN ARRAY[CASE op WHEN '*' THEN format('aq.jms_nmul(%s, %s)', a, b)
                       WHEN '/' THEN format('aq.jms_ndiv(%s, %s)', a, b)
                       ELSE format('((%s)::numeric %s (%s)::numeric)', a, op, b) END,
               CASE WHEN ac = 'exact' AND bc = 'exact' THEN 'exact' ELSE 'approx' END];
END $$;

CREATE OR REPLACE FUNCTION aq._cond_jms(n jsonb, hdr boolean, pp integer, po integer, prm text[])
RETURNS aq._cond_cr LANGUAGE plpgsql STABLE AS $f$
DECLARE
  k text := n->>'k';
  pos integer := (n->>'p')::integer;
  a aq._cond_cr; b aq._cond_cr; c aq._cond_cr;
  s text; s2 text; v text; name text; x text[]; idx integer; first integer; neg boolean;
  el jsonb; esc text;
BEGIN
  IF k = 'lit' THEN
    v := n->>'v';
    CASE n->>'t'
    WHEN 'null' THEN RETURN aq._cond_mk('NULL', 'null', prm, NULL);
    WHEN 'bool' THEN RETURN aq._cond_mk(CASE v WHEN 'TRUE' THEN 'true' ELSE 'false' END, 'bool', prm, NULL);
    WHEN 'str' THEN
      prm := prm || v; idx := cardinality(prm);
      RETURN aq._cond_mk(aq._cond_ref(pp, po, idx) || '::text', 'str', prm, idx);
    WHEN 'int' THEN
      IF length(ltrim(v, '+-0')) > 19
         OR v::numeric NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
        PERFORM aq._cond_raise('syntax', pos, 'numeric literal out of range');
      END IF;
      prm := prm || v; idx := cardinality(prm);
      RETURN aq._cond_mk(aq._cond_ref(pp, po, idx) || '::bigint', 'exact', prm, idx);
    ELSE
      -- a Java double literal (its range is checked), kept as the exact decimal it spells
      BEGIN
        PERFORM v::float8;
      EXCEPTION WHEN others THEN
        PERFORM aq._cond_raise('syntax', pos, 'numeric literal out of range');
      END;
      prm := prm || v; idx := cardinality(prm);
      RETURN aq._cond_mk(aq._cond_ref(pp, po, idx) || '::numeric', 'approx', prm, idx);
    END CASE;

  ELSIF k = 'id' THEN
    IF jsonb_array_length(n->'path') > 1 OR (n->'q'->>0)::boolean THEN
      SELECT string_agg(e, '.') INTO name FROM jsonb_array_elements_text(n->'path') e;
      PERFORM aq._cond_raise('ident', pos, name);
    END IF;
    name := n->'path'->>0;
    CASE name
    WHEN 'JMSPriority' THEN RETURN aq._cond_mk('m.priority', 'exact', prm, NULL);
    WHEN 'JMSCorrelationID' THEN RETURN aq._cond_mk('m.corrid', 'str', prm, NULL);
    WHEN 'JMSMessageID' THEN
      RETURN aq._cond_mk('(''ID:'' || upper(encode(m.msgid, ''hex'')))', 'str', prm, NULL);
    WHEN 'JMSTimestamp' THEN
      RETURN aq._cond_mk('(floor(extract(epoch FROM m.enq_time) * 1000))::bigint', 'exact', prm, NULL);
    WHEN 'JMSRedelivered' THEN RETURN aq._cond_mk('(m.retry_count > 0)', 'bool', prm, NULL);
    WHEN 'JMSXDeliveryCount' THEN RETURN aq._cond_mk('(m.retry_count + 1)', 'exact', prm, NULL);
    WHEN 'JMSDeliveryMode' THEN
      prm := prm || 'PERSISTENT'::text; idx := cardinality(prm);
      RETURN aq._cond_mk(aq._cond_ref(pp, po, idx) || '::text', 'str', prm, NULL);
    ELSE
      IF NOT hdr THEN
        PERFORM aq._cond_raise('ident', pos, name);
      END IF;
      CASE name
      WHEN 'JMSType' THEN RETURN aq._cond_mk('(((m.user_data).header).type)', 'str', prm, NULL);
      WHEN 'JMSXUserID' THEN RETURN aq._cond_mk('(((m.user_data).header).userid)', 'str', prm, NULL);
      WHEN 'JMSXAppID' THEN RETURN aq._cond_mk('(((m.user_data).header).appid)', 'str', prm, NULL);
      WHEN 'JMSXGroupID' THEN RETURN aq._cond_mk('(((m.user_data).header).groupid)', 'str', prm, NULL);
      WHEN 'JMSXGroupSeq' THEN RETURN aq._cond_mk('(((m.user_data).header).groupseq)', 'exact', prm, NULL);
      ELSE
        IF name LIKE 'JMS%' AND name NOT LIKE 'JMSX%' AND name NOT LIKE 'JMS\_%' THEN
          PERFORM aq._cond_raise('ident', pos, name);
        END IF;
        prm := prm || name; idx := cardinality(prm);
        RETURN aq._cond_mk(format('(((m.user_data).header).properties -> %s::text)', aq._cond_ref(pp, po, idx)),
                   'dyn', prm, NULL);
      END CASE;
    END CASE;

  ELSIF k = 'fn' THEN
    PERFORM aq._cond_raise('syntax', pos, 'function calls are not allowed in JMS selectors');

  ELSIF k IN ('neg', 'pos') THEN
    a := aq._cond_jms(n->'e', hdr, pp, po, prm);
    IF a.cat IN ('exact', 'approx') THEN
      RETURN aq._cond_mk(CASE WHEN k = 'pos' THEN a.sql ELSE format('(-(%s)::numeric)', a.sql) END,
                         a.cat, a.prm, NULL);
    ELSIF a.cat = 'dyn' THEN
      RETURN aq._cond_mk(format('aq.jms_%s(%s)', k, a.sql), 'dyn', a.prm, NULL);
    ELSIF a.cat = 'null' THEN
      RETURN aq._cond_mk('NULL', 'null', a.prm, NULL);
    END IF;
    PERFORM aq._cond_raise('type', pos, 'expected NUMBER, got ' || aq._cond_jms_catname(a.cat));

  ELSIF k = 'bin' THEN
    v := n->>'o';
    IF v = '||' THEN
      PERFORM aq._cond_raise('syntax', pos, 'operator || is not allowed in JMS selectors');
    END IF;
    -- JMSMessageID = 'ID:<32 hex>' uses the msgid column directly (index friendly)
    IF v IN ('=', '<>') THEN
      IF n->'l'->>'k' = 'id' AND n->'l'->'path' = '["JMSMessageID"]' AND n->'r'->>'k' = 'lit'
         AND n->'r'->>'t' = 'str' AND n->'r'->>'v' ~ '^ID:[0-9A-Fa-f]{32}$' THEN
        el := n->'r';
      ELSIF n->'r'->>'k' = 'id' AND n->'r'->'path' = '["JMSMessageID"]' AND n->'l'->>'k' = 'lit'
         AND n->'l'->>'t' = 'str' AND n->'l'->>'v' ~ '^ID:[0-9A-Fa-f]{32}$' THEN
        el := n->'l';
      END IF;
      IF el IS NOT NULL THEN
        prm := prm || (el->>'v'); idx := cardinality(prm);
        RETURN aq._cond_mk(format('(m.msgid %s decode(substr(%s::text, 4), ''hex''))', v, aq._cond_ref(pp, po, idx)),
                   'bool', prm, NULL);
      END IF;
    END IF;
    a := aq._cond_jms(n->'l', hdr, pp, po, prm);
    b := aq._cond_jms(n->'r', hdr, pp, po, a.prm);
    IF v IN ('+', '-', '*', '/') THEN
      x := aq._cond_jms_arith(v, a.sql, a.cat, b.sql, b.cat, pos);
      RETURN aq._cond_mk(x[1], x[2], b.prm, NULL);
    END IF;
    RETURN aq._cond_mk(aq._cond_jms_cmp(v, a.sql, a.cat, b.sql, b.cat, pos), 'bool', b.prm, NULL);

  ELSIF k IN ('and', 'or') THEN
    a := aq._cond_jms(n->'l', hdr, pp, po, prm);
    b := aq._cond_jms(n->'r', hdr, pp, po, a.prm);
    RETURN aq._cond_mk(format('(%s %s %s)', aq._cond_jms_bool(a.sql, a.cat, (n->'l'->>'p')::integer),
                      upper(k), aq._cond_jms_bool(b.sql, b.cat, (n->'r'->>'p')::integer)),
               'bool', b.prm, NULL);

  ELSIF k = 'not' THEN
    a := aq._cond_jms(n->'e', hdr, pp, po, prm);
    RETURN aq._cond_mk(format('(NOT %s)', aq._cond_jms_bool(a.sql, a.cat, (n->'e'->>'p')::integer)),
               'bool', a.prm, NULL);

  ELSIF k = 'isnull' THEN
    a := aq._cond_jms(n->'e', hdr, pp, po, prm);
    neg := (n->>'neg')::boolean;
    IF a.cat = 'dyn' THEN
      s := format('aq.jms_is_null(%s)', a.sql);
      IF neg THEN s := format('(NOT %s)', s); END IF;
    ELSIF a.cat = 'null' THEN
      s := CASE WHEN neg THEN 'false' ELSE 'true' END;
    ELSE
      s := format('(%s IS %sNULL)', a.sql, CASE WHEN neg THEN 'NOT ' ELSE '' END);
    END IF;
    RETURN aq._cond_mk(s, 'bool', a.prm, NULL);

  ELSIF k = 'between' THEN
    a := aq._cond_jms(n->'e', hdr, pp, po, prm);
    b := aq._cond_jms(n->'lo', hdr, pp, po, a.prm);
    c := aq._cond_jms(n->'hi', hdr, pp, po, b.prm);
    RETURN aq._cond_mk(aq._cond_jms_between((n->>'neg')::boolean, a, b, c, pos), 'bool', c.prm, NULL);

  ELSIF k = 'in' THEN
    a := aq._cond_jms(n->'e', hdr, pp, po, prm);
    prm := a.prm;
    first := cardinality(prm) + 1;
    FOR el IN SELECT * FROM jsonb_array_elements(n->'list') LOOP
      IF el->>'k' <> 'lit' OR el->>'t' <> 'str' THEN
        PERFORM aq._cond_raise('syntax', (el->>'p')::integer, 'IN needs a list of string literals');
      END IF;
      prm := prm || (el->>'v');
    END LOOP;
    s2 := format('(($%s)[%s:%s])::text[]', pp, po + first, po + cardinality(prm));
    neg := (n->>'neg')::boolean;
    IF a.cat = 'str' THEN
      s := format(CASE WHEN neg THEN '(%s <> ALL (%s))' ELSE '(%s = ANY (%s))' END, a.sql, s2);
    ELSIF a.cat = 'dyn' THEN
      s := format(CASE WHEN neg THEN 'aq.jms_not_in(%s, %s)' ELSE 'aq.jms_in(%s, %s)' END, a.sql, s2);
    ELSE  -- NULL, or statically not a string: UNKNOWN
      s := 'NULL::boolean';
    END IF;
    RETURN aq._cond_mk(s, 'bool', prm, NULL);

  ELSIF k = 'like' THEN
    a := aq._cond_jms(n->'e', hdr, pp, po, prm);
    prm := a.prm;
    el := n->'pat';
    IF el->>'k' <> 'lit' OR el->>'t' <> 'str' THEN
      PERFORM aq._cond_raise('syntax', (el->>'p')::integer, 'LIKE needs a string literal pattern');
    END IF;
    prm := prm || (el->>'v');
    s2 := aq._cond_ref(pp, po, cardinality(prm)) || '::text';
    IF jsonb_typeof(n->'esc') = 'object' THEN
      el := n->'esc';
      IF el->>'k' <> 'lit' OR el->>'t' <> 'str' THEN
        PERFORM aq._cond_raise('syntax', (el->>'p')::integer, 'ESCAPE needs a string literal');
      END IF;
      PERFORM aq._cond_check_like(n->'pat'->>'v', el->>'v', (el->>'p')::integer);
      prm := prm || (el->>'v');
      esc := aq._cond_ref(pp, po, cardinality(prm)) || '::text';
    ELSE
      esc := '''''';
    END IF;
    neg := (n->>'neg')::boolean;
    IF a.cat = 'str' THEN
      s := format('(%s %sLIKE %s ESCAPE %s)', a.sql, CASE WHEN neg THEN 'NOT ' ELSE '' END, s2, esc);
    ELSIF a.cat = 'dyn' THEN
      s := format('aq.jms_%slike(%s, %s, %s)', CASE WHEN neg THEN 'not_' ELSE '' END, a.sql, s2, esc);
    ELSE  -- NULL, or statically not a string: UNKNOWN
      s := 'NULL::boolean';
    END IF;
    RETURN aq._cond_mk(s, 'bool', prm, NULL);
  END IF;
  PERFORM aq._cond_raise('syntax', pos, 'unsupported construct');
  RETURN NULL;
END $f$;

------------------------------------------------------------------------------------------
-- AQ dialect
------------------------------------------------------------------------------------------

-- category of a PostgreSQL type: num str ts tsl date bool raw comp other
CREATE OR REPLACE FUNCTION aq._cond_typcat(p_type oid) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE t oid := p_type; tt "char"; bt oid; rel oid;
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

CREATE OR REPLACE FUNCTION aq._cond_aq_catname(c text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE c WHEN 'num' THEN 'NUMBER' WHEN 'lnum' THEN 'NUMBER' WHEN 'str' THEN 'CHAR'
                WHEN 'lstr' THEN 'CHAR' WHEN 'ts' THEN 'TIMESTAMP WITH TIME ZONE'
                WHEN 'tsl' THEN 'TIMESTAMP' WHEN 'date' THEN 'DATE' WHEN 'bool' THEN 'BOOLEAN'
                WHEN 'lbool' THEN 'BOOLEAN' WHEN 'raw' THEN 'RAW' WHEN 'comp' THEN 'OBJECT'
                WHEN 'null' THEN 'NULL' ELSE 'UNSUPPORTED TYPE' END
$$;

CREATE OR REPLACE FUNCTION aq._cond_aq_base(c text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE c WHEN 'lnum' THEN 'num' WHEN 'lstr' THEN 'str' WHEN 'lbool' THEN 'bool' ELSE c END
$$;

-- resolve [tab.]column / [tab.]user_data[.attr...]
CREATE OR REPLACE FUNCTION aq._cond_aq_ident(n jsonb, pt oid) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  parts text[]; q boolean[]; cnt integer; i integer := 1; nm text; s text; typ oid; rel oid;
  an name; at oid; hits integer; fullname text; pos integer := (n->>'p')::integer;
BEGIN
  SELECT array_agg(e ORDER BY o) INTO parts FROM jsonb_array_elements_text(n->'path') WITH ORDINALITY x(e, o);
  SELECT array_agg(e::boolean ORDER BY o) INTO q FROM jsonb_array_elements_text(n->'q') WITH ORDINALITY x(e, o);
  cnt := cardinality(parts);
  fullname := array_to_string(parts, '.');
  IF cnt > 1 AND NOT q[1] AND lower(parts[1]) = 'tab' THEN i := 2; END IF;
  nm := CASE WHEN q[i] THEN parts[i] ELSE lower(parts[i]) END;
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
  IF nm <> 'user_data' OR pt IS NULL THEN
    PERFORM aq._cond_raise('ident', pos, fullname);
  END IF;
  s := 'm.user_data';
  typ := pt;
  FOR j IN i + 1 .. cnt LOOP
    -- domains over composites
    LOOP
      SELECT CASE WHEN typtype = 'd' THEN typbasetype END, typrelid INTO at, rel FROM pg_type WHERE oid = typ;
      EXIT WHEN at IS NULL;
      typ := at;
    END LOOP;
    IF rel IS NULL OR rel = 0 THEN
      PERFORM aq._cond_raise('ident', pos, fullname);
    END IF;
    IF q[j] THEN
      SELECT a.attname, a.atttypid INTO an, at FROM pg_attribute a
       WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND a.attname = parts[j];
      hits := CASE WHEN an IS NULL THEN 0 ELSE 1 END;
    ELSE
      SELECT a.attname, a.atttypid, count(*) OVER () INTO an, at, hits FROM pg_attribute a
       WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped AND lower(a.attname) = lower(parts[j])
       ORDER BY (a.attname = lower(parts[j])) DESC, a.attnum;
      IF hits > 1 AND an <> lower(parts[j]) THEN
        PERFORM aq._cond_raise('ambiguous', pos, fullname);
      END IF;
    END IF;
    IF coalesce(hits, 0) = 0 THEN
      PERFORM aq._cond_raise('ident', pos, fullname);
    END IF;
    s := format('((%s).%I)', s, an);
    typ := at;
  END LOOP;
  RETURN ARRAY[s, aq._cond_typcat(typ)];
END $$;

-- any scalar as text (strict: only strings / RAW)
CREATE OR REPLACE FUNCTION aq._cond_aq_str(r aq._cond_cr, strict boolean, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF r.cat IN ('str', 'lstr') THEN RETURN r.sql;
  ELSIF r.cat = 'raw' THEN RETURN format('upper(encode(%s, ''hex''))', r.sql);
  ELSIF r.cat = 'null' THEN RETURN 'NULL::text';
  ELSIF NOT strict AND r.cat IN ('num', 'lnum', 'ts', 'tsl', 'date', 'bool', 'lbool') THEN
    RETURN format('(%s)::text', r.sql);
  END IF;
  PERFORM aq._cond_raise('type', pos, 'expected CHAR, got ' || aq._cond_aq_catname(r.cat));
  RETURN NULL;
END $$;

-- any scalar as number
CREATE OR REPLACE FUNCTION aq._cond_aq_num(r aq._cond_cr, pp integer, po integer, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF r.cat IN ('num', 'lnum') THEN RETURN r.sql;
  ELSIF r.cat = 'lstr' THEN
    IF aq.try_numeric(r.prm[r.li]) IS NULL THEN
      PERFORM aq._cond_raise('type', pos, format('ORA-01722: invalid number %L', r.prm[r.li]));
    END IF;
    RETURN aq._cond_ref(pp, po, r.li) || '::numeric';
  ELSIF r.cat = 'str' THEN RETURN format('aq.try_numeric(%s)', r.sql);
  ELSIF r.cat = 'null' THEN RETURN 'NULL::numeric';
  END IF;
  PERFORM aq._cond_raise('type', pos, 'expected NUMBER, got ' || aq._cond_aq_catname(r.cat));
  RETURN NULL;
END $$;

-- a string literal converted to ts/tsl/date/bool (validated now)
CREATE OR REPLACE FUNCTION aq._cond_aq_cast(r aq._cond_cr, target text, pp integer, po integer, pos integer)
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE v text := r.prm[r.li]; typ text;
BEGIN
  typ := CASE target WHEN 'ts' THEN 'timestamptz' WHEN 'tsl' THEN 'timestamp' WHEN 'date' THEN 'date'
                     WHEN 'bool' THEN 'boolean' END;
  BEGIN
    CASE target
    WHEN 'ts' THEN PERFORM v::timestamptz;
    WHEN 'tsl' THEN PERFORM v::timestamp;
    WHEN 'date' THEN PERFORM v::date;
    WHEN 'bool' THEN PERFORM v::boolean;
    END CASE;
  EXCEPTION WHEN others THEN
    PERFORM aq._cond_raise('type', pos, format('cannot convert %L to %s', v, aq._cond_aq_catname(target)));
  END;
  RETURN aq._cond_ref(pp, po, r.li) || '::' || typ;
END $$;

-- bring two operands to a comparable form; NULL when one of them is the NULL literal
CREATE OR REPLACE FUNCTION aq._cond_aq_unify(a aq._cond_cr, b aq._cond_cr, pp integer, po integer, pos integer)
RETURNS text[] LANGUAGE plpgsql STABLE AS $$
DECLARE ca text := aq._cond_aq_base(a.cat); cb text := aq._cond_aq_base(b.cat);
BEGIN
  IF ca = 'null' OR cb = 'null' THEN RETURN NULL; END IF;
  IF ca = 'raw' OR cb = 'raw' THEN
    IF ca = cb THEN RETURN ARRAY[a.sql, b.sql]; END IF;
    IF b.cat = 'lstr' AND b.prm[b.li] ~ '^([0-9A-Fa-f]{2})*$' THEN
      RETURN ARRAY[a.sql, format('decode(%s, ''hex'')', b.sql)];
    ELSIF a.cat = 'lstr' AND a.prm[a.li] ~ '^([0-9A-Fa-f]{2})*$' THEN
      RETURN ARRAY[format('decode(%s, ''hex'')', a.sql), b.sql];
    ELSIF ca = 'str' OR cb = 'str' THEN
      RETURN ARRAY[CASE WHEN a.cat = 'lstr' THEN format('upper(%s)', a.sql) ELSE aq._cond_aq_str(a, true, pos) END,
                   CASE WHEN b.cat = 'lstr' THEN format('upper(%s)', b.sql) ELSE aq._cond_aq_str(b, true, pos) END];
    END IF;
  ELSIF ca = cb AND ca IN ('num', 'str', 'bool', 'ts', 'tsl', 'date') THEN
    RETURN ARRAY[a.sql, b.sql];
  ELSIF ca = 'num' AND cb = 'str' OR ca = 'str' AND cb = 'num' THEN
    RETURN ARRAY[aq._cond_aq_num(a, pp, po, pos), aq._cond_aq_num(b, pp, po, pos)];
  ELSIF ca IN ('ts', 'tsl', 'date') AND cb IN ('ts', 'tsl', 'date') THEN
    RETURN ARRAY[a.sql, b.sql];
  ELSIF ca IN ('ts', 'tsl', 'date', 'bool') AND b.cat = 'lstr' THEN
    RETURN ARRAY[a.sql, aq._cond_aq_cast(b, ca, pp, po, pos)];
  ELSIF cb IN ('ts', 'tsl', 'date', 'bool') AND a.cat = 'lstr' THEN
    RETURN ARRAY[aq._cond_aq_cast(a, cb, pp, po, pos), b.sql];
  END IF;
  PERFORM aq._cond_raise('type', pos,
    format('expected %s, got %s', aq._cond_aq_catname(a.cat), aq._cond_aq_catname(b.cat)));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION aq._cond_aq_bool(r aq._cond_cr, pos integer) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF r.cat IN ('bool', 'lbool') THEN RETURN r.sql;
  ELSIF r.cat = 'null' THEN RETURN 'NULL::boolean';
  END IF;
  PERFORM aq._cond_raise('type', pos, 'expected BOOLEAN, got ' || aq._cond_aq_catname(r.cat));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION aq._cond_aq(n jsonb, pt oid, pp integer, po integer, prm text[])
RETURNS aq._cond_cr LANGUAGE plpgsql STABLE AS $f$
DECLARE
  k text := n->>'k';
  pos integer := (n->>'p')::integer;
  a aq._cond_cr; b aq._cond_cr; c aq._cond_cr;
  s text; v text; x text[]; y text[]; idx integer; neg boolean; el jsonb; esc text;
  args aq._cond_cr[]; tcat text; cnt integer; parts text[];
BEGIN
  IF k = 'lit' THEN
    v := n->>'v';
    CASE n->>'t'
    WHEN 'null' THEN RETURN aq._cond_mk('NULL', 'null', prm, NULL);
    WHEN 'bool' THEN RETURN aq._cond_mk(CASE v WHEN 'TRUE' THEN 'true' ELSE 'false' END, 'lbool', prm, NULL);
    WHEN 'str' THEN
      prm := prm || v; idx := cardinality(prm);
      RETURN aq._cond_mk(aq._cond_ref(pp, po, idx) || '::text', 'lstr', prm, idx);
    WHEN 'int' THEN
      prm := prm || v; idx := cardinality(prm);
      RETURN aq._cond_mk(aq._cond_ref(pp, po, idx)
                 || CASE WHEN length(ltrim(v, '+-0')) <= 18 THEN '::bigint' ELSE '::numeric' END,
                 'lnum', prm, idx);
    ELSE
      IF aq.try_numeric(v) IS NULL THEN
        PERFORM aq._cond_raise('syntax', pos, 'numeric literal out of range');
      END IF;
      prm := prm || v; idx := cardinality(prm);
      RETURN aq._cond_mk(aq._cond_ref(pp, po, idx) || '::numeric', 'lnum', prm, idx);
    END CASE;

  ELSIF k = 'id' THEN
    x := aq._cond_aq_ident(n, pt);
    RETURN aq._cond_mk(x[1], x[2], prm, NULL);

  ELSIF k = 'fn' THEN
    v := n->>'n';
    cnt := jsonb_array_length(n->'a');
    IF v NOT IN ('UPPER', 'LOWER', 'LENGTH', 'ABS', 'SUBSTR', 'TRIM', 'COALESCE', 'NVL') THEN
      PERFORM aq._cond_raise('ident', pos, n->>'raw');
    END IF;
    IF v IN ('UPPER', 'LOWER', 'LENGTH', 'ABS', 'TRIM') AND cnt <> 1
       OR v = 'SUBSTR' AND cnt NOT IN (2, 3) OR v = 'NVL' AND cnt <> 2 OR v = 'COALESCE' AND cnt < 1 THEN
      PERFORM aq._cond_raise('args', pos, v);
    END IF;
    args := '{}';
    FOR el IN SELECT * FROM jsonb_array_elements(n->'a') LOOP
      a := aq._cond_aq(el, pt, pp, po, prm);
      prm := a.prm;
      args := args || a;
    END LOOP;
    CASE v
    WHEN 'UPPER', 'LOWER' THEN
      RETURN aq._cond_mk(format('%s(%s)', lower(v), aq._cond_aq_str(args[1], false, (n->'a'->0->>'p')::integer)),
                 'str', prm, NULL);
    WHEN 'TRIM' THEN
      RETURN aq._cond_mk(format('btrim(%s)', aq._cond_aq_str(args[1], false, (n->'a'->0->>'p')::integer)), 'str', prm, NULL);
    WHEN 'LENGTH' THEN
      RETURN aq._cond_mk(format('length(%s)', aq._cond_aq_str(args[1], false, (n->'a'->0->>'p')::integer)), 'num', prm, NULL);
    WHEN 'ABS' THEN
      RETURN aq._cond_mk(format('abs(%s)', aq._cond_aq_num(args[1], pp, po, (n->'a'->0->>'p')::integer)), 'num', prm, NULL);
    WHEN 'SUBSTR' THEN
      RETURN aq._cond_mk(format('aq.ora_substr(%s, %s, %s)',
                        aq._cond_aq_str(args[1], false, (n->'a'->0->>'p')::integer),
                        aq._cond_aq_num(args[2], pp, po, (n->'a'->1->>'p')::integer),
                        CASE WHEN cnt = 3 THEN aq._cond_aq_num(args[3], pp, po, (n->'a'->2->>'p')::integer)
                             ELSE 'NULL' END),
                 'str', prm, NULL);
    ELSE -- COALESCE / NVL: type of the first non-NULL argument
      tcat := NULL;
      FOR i IN 1 .. cnt LOOP
        IF args[i].cat <> 'null' THEN tcat := aq._cond_aq_base(args[i].cat); EXIT; END IF;
      END LOOP;
      IF tcat IS NULL THEN RETURN aq._cond_mk('NULL', 'null', prm, NULL); END IF;
      parts := '{}';
      FOR i IN 1 .. cnt LOOP
        a := args[i];
        IF a.cat = 'null' THEN s := 'NULL';
        ELSIF tcat = 'num' THEN s := aq._cond_aq_num(a, pp, po, (n->'a'->(i - 1)->>'p')::integer);
        ELSIF tcat = 'str' THEN s := aq._cond_aq_str(a, false, (n->'a'->(i - 1)->>'p')::integer);
        ELSIF aq._cond_aq_base(a.cat) = tcat THEN s := a.sql;
        ELSIF tcat IN ('ts', 'tsl', 'date') AND a.cat IN ('ts', 'tsl', 'date') THEN s := a.sql;
        ELSIF tcat IN ('ts', 'tsl', 'date', 'bool') AND a.cat = 'lstr' THEN
          s := aq._cond_aq_cast(a, tcat, pp, po, (n->'a'->(i - 1)->>'p')::integer);
        ELSE
          PERFORM aq._cond_raise('type', (n->'a'->(i - 1)->>'p')::integer,
            format('expected %s, got %s', aq._cond_aq_catname(tcat), aq._cond_aq_catname(a.cat)));
        END IF;
        parts := parts || s;
      END LOOP;
      IF tcat = 'raw' THEN tcat := 'raw'; END IF;
      RETURN aq._cond_mk(format('COALESCE(%s)', array_to_string(parts, ', ')), tcat, prm, NULL);
    END CASE;

  ELSIF k IN ('neg', 'pos') THEN
    a := aq._cond_aq(n->'e', pt, pp, po, prm);
    s := aq._cond_aq_num(a, pp, po, (n->'e'->>'p')::integer);
    RETURN aq._cond_mk(CASE k WHEN 'neg' THEN format('(-(%s)::numeric)', s) ELSE s END, 'num', a.prm, NULL);

  ELSIF k = 'bin' THEN
    v := n->>'o';
    a := aq._cond_aq(n->'l', pt, pp, po, prm);
    b := aq._cond_aq(n->'r', pt, pp, po, a.prm);
    IF v IN ('+', '-', '*') THEN
      -- in numeric, as Oracle's NUMBER: bigint literals and integer columns never overflow
      RETURN aq._cond_mk(format('((%s)::numeric %s (%s)::numeric)', aq._cond_aq_num(a, pp, po, (n->'l'->>'p')::integer), v,
                        aq._cond_aq_num(b, pp, po, (n->'r'->>'p')::integer)), 'num', b.prm, NULL);
    ELSIF v = '/' THEN
      RETURN aq._cond_mk(format('((%s)::numeric / NULLIF(%s, 0))', aq._cond_aq_num(a, pp, po, (n->'l'->>'p')::integer),
                        aq._cond_aq_num(b, pp, po, (n->'r'->>'p')::integer)), 'num', b.prm, NULL);
    ELSIF v = '||' THEN
      RETURN aq._cond_mk(format('concat(%s, %s)', aq._cond_aq_str(a, false, (n->'l'->>'p')::integer),
                        aq._cond_aq_str(b, false, (n->'r'->>'p')::integer)), 'str', b.prm, NULL);
    END IF;
    x := aq._cond_aq_unify(a, b, pp, po, pos);
    IF x IS NULL THEN RETURN aq._cond_mk('NULL::boolean', 'bool', b.prm, NULL); END IF;
    RETURN aq._cond_mk(format('(%s %s %s)', x[1], v, x[2]), 'bool', b.prm, NULL);

  ELSIF k IN ('and', 'or') THEN
    a := aq._cond_aq(n->'l', pt, pp, po, prm);
    b := aq._cond_aq(n->'r', pt, pp, po, a.prm);
    RETURN aq._cond_mk(format('(%s %s %s)', aq._cond_aq_bool(a, (n->'l'->>'p')::integer), upper(k),
                      aq._cond_aq_bool(b, (n->'r'->>'p')::integer)), 'bool', b.prm, NULL);

  ELSIF k = 'not' THEN
    a := aq._cond_aq(n->'e', pt, pp, po, prm);
    RETURN aq._cond_mk(format('(NOT %s)', aq._cond_aq_bool(a, (n->'e'->>'p')::integer)), 'bool', a.prm, NULL);

  ELSIF k = 'isnull' THEN
    a := aq._cond_aq(n->'e', pt, pp, po, prm);
    neg := (n->>'neg')::boolean;
    IF a.cat = 'comp' THEN
      -- a composite is NULL only when the value itself is NULL (not when all fields are)
      s := format('(%s IS %sDISTINCT FROM NULL)', a.sql, CASE WHEN neg THEN '' ELSE 'NOT ' END);
    ELSE
      s := format('(%s IS %sNULL)', a.sql, CASE WHEN neg THEN 'NOT ' ELSE '' END);
    END IF;
    RETURN aq._cond_mk(s, 'bool', a.prm, NULL);

  ELSIF k = 'between' THEN
    a := aq._cond_aq(n->'e', pt, pp, po, prm);
    b := aq._cond_aq(n->'lo', pt, pp, po, a.prm);
    c := aq._cond_aq(n->'hi', pt, pp, po, b.prm);
    x := aq._cond_aq_unify(a, b, pp, po, pos);
    y := aq._cond_aq_unify(a, c, pp, po, pos);
    s := format('(%s AND %s)',
                CASE WHEN x IS NULL THEN 'NULL::boolean' ELSE format('%s >= %s', x[1], x[2]) END,
                CASE WHEN y IS NULL THEN 'NULL::boolean' ELSE format('%s <= %s', y[1], y[2]) END);
    IF (n->>'neg')::boolean THEN s := format('(NOT %s)', s); END IF;
    RETURN aq._cond_mk(s, 'bool', c.prm, NULL);

  ELSIF k = 'in' THEN
    a := aq._cond_aq(n->'e', pt, pp, po, prm);
    prm := a.prm;
    parts := '{}';
    FOR el IN SELECT * FROM jsonb_array_elements(n->'list') LOOP
      b := aq._cond_aq(el, pt, pp, po, prm);
      prm := b.prm;
      x := aq._cond_aq_unify(a, b, pp, po, (el->>'p')::integer);
      parts := parts || CASE WHEN x IS NULL THEN 'NULL::boolean' ELSE format('%s = %s', x[1], x[2]) END;
    END LOOP;
    s := format('(%s)', array_to_string(parts, ' OR '));
    IF (n->>'neg')::boolean THEN s := format('(NOT %s)', s); END IF;
    RETURN aq._cond_mk(s, 'bool', prm, NULL);

  ELSIF k = 'like' THEN
    a := aq._cond_aq(n->'e', pt, pp, po, prm);
    b := aq._cond_aq(n->'pat', pt, pp, po, a.prm);
    prm := b.prm;
    IF jsonb_typeof(n->'esc') = 'object' THEN
      el := n->'esc';
      IF el->>'k' <> 'lit' OR el->>'t' <> 'str' THEN
        PERFORM aq._cond_raise('syntax', (el->>'p')::integer, 'ESCAPE needs a string literal');
      END IF;
      IF b.cat = 'lstr' THEN
        PERFORM aq._cond_check_like(b.prm[b.li], el->>'v', (el->>'p')::integer);
      ELSIF length(el->>'v') <> 1 THEN
        PERFORM aq._cond_raise('syntax', (el->>'p')::integer, 'ESCAPE needs a string literal of exactly one character');
      END IF;
      c := aq._cond_aq(el, pt, pp, po, prm);
      prm := c.prm;
      esc := c.sql;
    ELSE
      esc := '''''';
    END IF;
    s := format('(%s %sLIKE %s ESCAPE %s)',
                aq._cond_aq_str(a, true, (n->'e'->>'p')::integer),
                CASE WHEN (n->>'neg')::boolean THEN 'NOT ' ELSE '' END,
                aq._cond_aq_str(b, true, (n->'pat'->>'p')::integer), esc);
    RETURN aq._cond_mk(s, 'bool', prm, NULL);
  END IF;
  PERFORM aq._cond_raise('syntax', pos, 'unsupported construct');
  RETURN NULL;
END $f$;

------------------------------------------------------------------------------------------
-- Entry point
------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION aq.compile_condition(p_text text, p_dialect text, p_payload regtype,
                                                p_param integer DEFAULT 1, p_offset integer DEFAULT 0)
RETURNS aq.compiled_condition LANGUAGE plpgsql STABLE SECURITY INVOKER AS $f$
DECLARE
  d text := upper(p_dialect);
  toks aq._cond_tok[];
  pr aq._cond_pr;
  cr aq._cond_cr;
  hdr boolean;
  s text;
BEGIN
  IF d IS NULL OR d NOT IN ('AQ', 'JMS') THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('invalid condition dialect %L (expected AQ or JMS)', p_dialect);
  END IF;
  IF p_param IS NULL OR p_param < 1 OR p_offset IS NULL OR p_offset < 0 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'p_param must be >= 1 and p_offset >= 0';
  END IF;
  IF p_text IS NULL THEN RETURN NULL; END IF;
  toks := aq._cond_tokenize(p_text);
  IF cardinality(toks) = 1 THEN RETURN NULL; END IF;   -- only whitespace
  pr := aq._cond_parse(toks, 1, 1, 0);
  IF toks[pr.nxt].k <> 'eof' THEN
    PERFORM aq._cond_raise('syntax', toks[pr.nxt].p, 'unexpected ' || aq._cond_describe(toks[pr.nxt]));
  END IF;
  IF d = 'JMS' THEN
    hdr := EXISTS (SELECT 1 FROM pg_type t JOIN pg_attribute a ON a.attrelid = t.typrelid
                    WHERE t.oid = p_payload AND a.attname = 'header' AND NOT a.attisdropped
                      AND a.atttypid = 'sys.aq$_jms_header'::regtype);
    cr := aq._cond_jms(pr.node, coalesce(hdr, false), p_param, p_offset, '{}');
    s := aq._cond_jms_bool(cr.sql, cr.cat, (pr.node->>'p')::integer);
  ELSE
    cr := aq._cond_aq(pr.node, p_payload, p_param, p_offset, '{}');
    s := aq._cond_aq_bool(cr, (pr.node->>'p')::integer);
  END IF;
  RETURN ROW(s, coalesce(cr.prm, '{}'))::aq.compiled_condition;
END $f$;

COMMENT ON FUNCTION aq.compile_condition(text, text, regtype, integer, integer) IS
  'Compile an AQ dequeue condition / subscriber rule (dialect AQ) or a JMS message selector '
  '(dialect JMS) into a parameterised boolean SQL expression over alias m; literals are '
  'referenced as (($p_param)[p_offset+i]). NULL/blank condition returns NULL (= TRUE).';

-- Subscriber rules are cached compiled (aq.rule_cache): when this compiler changes, the
-- rules already in the catalog are compiled again so they follow it. A rule the compiler
-- now refuses (none is expected) keeps its old compiled form and is reported.
DO $$
DECLARE r record;
BEGIN
  IF to_regprocedure('aq.rebuild_rules(integer)') IS NULL OR to_regclass('aq.rule_cache') IS NULL THEN
    RETURN;
  END IF;
  FOR r IN SELECT queue_id FROM aq.rule_cache ORDER BY queue_id LOOP
    BEGIN
      PERFORM aq.rebuild_rules(r.queue_id);
    EXCEPTION WHEN others THEN
      RAISE WARNING 'subscriber rules of queue % not recompiled: %', r.queue_id, SQLERRM;
    END;
  END LOOP;
END $$;
