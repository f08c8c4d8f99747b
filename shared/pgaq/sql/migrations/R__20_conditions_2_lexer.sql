-- Condition compiler, part 2 of 7: the lexer (condition text -> aq._condition_token[]).
--
-- One regular expression splits the text; each match is one token, white space between
-- tokens is dropped. White space is what Java's Character.isWhitespace accepts, in both
-- dialects (a superset of SQL's). Tokens, by kind:
--   string             '...' with '' for a quote; an unterminated one is kept, and the
--                      parser reports it
--   quoted_identifier  "..." with "" for a double quote (likewise)
--   number             123  1.5  .5  1e10  1.5E-3   (a sign is a separate operator token)
--   keyword            AND OR NOT BETWEEN LIKE IN IS NULL TRUE FALSE ESCAPE (any case; the
--                      value is upper case)
--   identifier         a letter, _ or $, then letters, digits, _ $ #
--   operator           <> != <= >= || - + * / = < > ( ) , .
--   invalid            any other single character (the parser refuses it)
--   end                always last, at the position after the text
-- The array is never empty: a text of white space only gives just the end token.

-- a token (see aq._condition_token in part 1), built by field name: callers name each
-- field (kind => ..., value => ..., pos => ...); a SQL function of one SELECT, inlined
CREATE OR REPLACE FUNCTION aq._condition_new_token(kind text, value text, pos integer)
RETURNS aq._condition_token
LANGUAGE sql IMMUTABLE AS $$ SELECT ROW(kind, value, pos)::aq._condition_token $$;

CREATE OR REPLACE FUNCTION aq._condition_tokenize(condition text) RETURNS aq._condition_token[]
LANGUAGE sql IMMUTABLE AS $f$
  SELECT coalesce(array_agg(aq._condition_new_token(
           kind => CASE WHEN captures[3] IS NOT NULL THEN 'string'
                        WHEN captures[4] IS NOT NULL THEN 'quoted_identifier'
                        WHEN captures[5] IS NOT NULL THEN 'number'
                        WHEN captures[6] IS NOT NULL THEN
                          CASE WHEN upper(captures[6]) IN ('AND', 'OR', 'NOT', 'BETWEEN', 'LIKE', 'IN', 'IS',
                                                           'NULL', 'TRUE', 'FALSE', 'ESCAPE')
                               THEN 'keyword' ELSE 'identifier' END
                        WHEN captures[7] IS NOT NULL THEN 'operator'
                        ELSE 'invalid' END,
           value => CASE WHEN captures[6] IS NOT NULL AND upper(captures[6]) IN ('AND', 'OR', 'NOT', 'BETWEEN', 'LIKE', 'IN',
                                                                                'IS', 'NULL', 'TRUE', 'FALSE', 'ESCAPE')
                         THEN upper(captures[6]) ELSE captures[1] END,
           pos => pos) ORDER BY ordinal), '{}')
         || aq._condition_new_token(kind => 'end', value => NULL, pos => length(condition) + 1)
  FROM (SELECT r.captures, r.ordinal,
               (sum(length(r.captures[1])) OVER (ORDER BY r.ordinal) - length(r.captures[1]) + 1)::integer AS pos
          FROM regexp_matches(condition,
                 -- 2 white space, 3 string, 4 quoted identifier, 5 number, 6 word, 7 operator, 8 other
                 $re$(([ \t\n\v\f\r\u001C-\u001F\u1680\u2000-\u2006\u2008-\u200A\u2028\u2029\u205F\u3000]+)|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|([[:alpha:]_$][[:alnum:]_$#]*)|(<>|!=|<=|>=|\|\||[-+*/=<>(),.])|(.))$re$,
                 'g') WITH ORDINALITY AS r(captures, ordinal)) s
  WHERE captures[2] IS NULL
$f$;

-- a token as an error message names it
CREATE OR REPLACE FUNCTION aq._condition_describe(token aq._condition_token) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE token.kind WHEN 'end' THEN 'end of condition'
                         WHEN 'string' THEN 'string literal'
                         ELSE format('"%s"', token.value) END
$$;
