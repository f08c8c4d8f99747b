-- Condition compiler, part 1 of 7: the compiler's types, its AST, its errors and the small
-- helpers both dialects share.
--
-- The compiler turns AQ dequeue conditions, AQ subscriber rules and JMS message selectors
-- into parameterised SQL over the message row `m`. It is read top to bottom in these files,
-- which the migration runner applies in name order (each in its own transaction):
--   1_ast       types, AST reference, errors, shared helpers   (this file)
--   2_lexer     text -> tokens                                  aq._condition_tokenize
--   3_parser    tokens -> jsonb AST                             aq._condition_parse
--   4_sql_aq    AST -> SQL, AQ dialect (conditions and rules)   aq._condition_aq
--   5_sql_jms   AST -> SQL, JMS dialect (message selectors)     aq._condition_jms
--   6_runtime   functions the generated SQL calls per message   aq.try_numeric, aq.jms_*
--   7_compile   the entry point aq.compile_condition, retiring the pre-split compiler,
--               recompiling the cached subscriber rules
-- Everything named aq._condition_* is private to the compiler (nothing stores its names);
-- the runtime helpers and aq.compile_condition are what stored and running SQL refers to.
--
-- Types
--   aq.compiled_condition (sql, params)   the result of aq.compile_condition (public; also
--                                          created by V0001__catalog.sql)
--   aq._condition_token (kind, value, pos)
--       kind: 'string' | 'quoted_identifier' | 'number' | 'keyword' | 'identifier' |
--             'operator' | 'invalid' | 'end'; value: the text as written (keywords upper
--             case); pos: 1-based character position in the condition.
--   aq._condition_parsed (node, next_token)
--       one parse step: the AST of what was read and the index of the first token after it.
--   aq._condition_fragment (sql, category, params, literal_index)
--       one compiled subtree: its SQL, its static category, every parameter collected so
--       far (literals and JMS property names, in order), and for a literal the index of its
--       own parameter in params (the compiler looks at the literal's value: hex RAW, a
--       string compared with a number, a LIKE pattern).
--       AQ categories: num str ts tsl date bool raw comp other null, and lnum lstr lbool for
--       a literal (a number, string or boolean the user wrote); JMS categories: str, exact
--       (bigint / numeric integers), approx (numeric), bool, null, and dyn (a user property:
--       typed jsonb, checked at run time by the aq.jms_* helpers).
--
-- AST: jsonb objects; every node has "kind" and "pos" (1-based position of its first token,
-- or of its operator for the infix forms):
--   literal      "type": null|boolean|string|integer|decimal|approximate, "value" (text;
--                absent for null), "signed": true when a leading + or - was folded into it
--   identifier   "path": [parts of a dotted name], "quoted": [was each part "quoted"]
--   function     "name" (upper case), "spelled" (as written), "args": [nodes]
--   minus, plus  "operand"                                   (unary - and +)
--   binary       "operator": = <> < <= > >= + - * / ||,  "left", "right"   (!= becomes <>)
--   and, or      "left", "right"
--   not          "operand"
--   is_null      "operand", "negated"                        (IS [NOT] NULL)
--   between      "operand", "low", "high", "negated"
--   in           "operand", "list": [nodes], "negated"
--   like         "operand", "pattern", "escape" (node or JSON null), "negated"
--
-- Errors (the message always carries a 1-based character position into the condition), by
-- the error_kind given to aq._condition_raise:
--   syntax     42601  ORA-00936: invalid condition at position N: <detail>   (also JMS-only
--                     restrictions such as "IN needs string literals", bad ESCAPE)
--   args       42601  ORA-00909: invalid number of arguments at position N: <function>
--   ident      42703  ORA-00904: invalid identifier "<name>" at position N   (unknown column,
--                     payload attribute, function, or JMS header)
--   ambiguous  42702  ORA-00918: column ambiguously defined: "<name>" at position N
--   type       42804  ORA-00932: inconsistent datatypes at position N: <detail>
-- (aq.compile_condition itself raises 22023 for a bad dialect, parameter number or offset.)
--
-- The types are created once and kept (functions of the files that follow take and return
-- them). The pre-split compiler's aq._cond_tok / _cond_pr / _cond_cr and its aq._cond_*
-- functions stay until R__20_conditions_7_compile.sql has switched aq.compile_condition to
-- this compiler (R__98_upgrade.sql drops them), so a database being upgraded compiles
-- conditions all along.

DO $$
BEGIN
  IF to_regtype('aq.compiled_condition') IS NULL THEN
    CREATE TYPE aq.compiled_condition AS (sql text, params text[]);
  END IF;
  IF to_regtype('aq._condition_token') IS NULL THEN
    CREATE TYPE aq._condition_token AS (kind text, value text, pos integer);
  END IF;
  IF to_regtype('aq._condition_parsed') IS NULL THEN
    CREATE TYPE aq._condition_parsed AS (node jsonb, next_token integer);
  END IF;
  IF to_regtype('aq._condition_fragment') IS NULL THEN
    CREATE TYPE aq._condition_fragment AS (sql text, category text, params text[], literal_index integer);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION aq._condition_raise(error_kind text, pos integer, detail text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  CASE error_kind
  WHEN 'syntax' THEN
    RAISE EXCEPTION USING ERRCODE = '42601',
      MESSAGE = format('ORA-00936: invalid condition at position %s: %s', pos, detail);
  WHEN 'ident' THEN
    RAISE EXCEPTION USING ERRCODE = '42703',
      MESSAGE = format('ORA-00904: invalid identifier "%s" at position %s', detail, pos);
  WHEN 'ambiguous' THEN
    RAISE EXCEPTION USING ERRCODE = '42702',
      MESSAGE = format('ORA-00918: column ambiguously defined: "%s" at position %s', detail, pos);
  WHEN 'args' THEN
    RAISE EXCEPTION USING ERRCODE = '42601',
      MESSAGE = format('ORA-00909: invalid number of arguments at position %s: %s', pos, detail);
  ELSE
    RAISE EXCEPTION USING ERRCODE = '42804',
      MESSAGE = format('ORA-00932: inconsistent datatypes at position %s: %s', pos, detail);
  END CASE;
END $$;

-- a compiled subtree (see aq._condition_fragment above)
CREATE OR REPLACE FUNCTION aq._condition_new_fragment(sql text, category text, params text[],
                                                      literal_index integer)
RETURNS aq._condition_fragment
LANGUAGE sql IMMUTABLE AS $$ SELECT ROW(sql, category, params, literal_index)::aq._condition_fragment $$;

-- the SQL that reads parameter number param_index of the compiled condition: element
-- param_offset + param_index of the text[] the caller passes as $param_number
CREATE OR REPLACE FUNCTION aq._condition_param_ref(param_number integer, param_offset integer,
                                                   param_index integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT format('(($%s)[%s])', param_number, param_offset + param_index) $$;

-- check a literal LIKE pattern against its escape character
CREATE OR REPLACE FUNCTION aq._condition_check_like_escape(pattern text, escape_char text, pos integer)
RETURNS void LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE j integer := 1; next_char text;
BEGIN
  IF escape_char IS NULL THEN RETURN; END IF;
  IF length(escape_char) <> 1 THEN
    PERFORM aq._condition_raise('syntax', pos, 'ESCAPE needs a string literal of exactly one character');
  END IF;
  WHILE j <= length(pattern) LOOP
    IF substr(pattern, j, 1) = escape_char THEN
      next_char := substr(pattern, j + 1, 1);
      IF next_char NOT IN ('%', '_', escape_char) OR next_char = '' THEN
        PERFORM aq._condition_raise('syntax', pos, 'escape character must be followed by %, _ or itself');
      END IF;
      j := j + 2;
    ELSE
      j := j + 1;
    END IF;
  END LOOP;
END $$;
