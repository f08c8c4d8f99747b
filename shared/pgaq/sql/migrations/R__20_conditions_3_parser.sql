-- Condition compiler, part 3 of 7: the parser (aq._condition_token[] -> jsonb AST).
--
-- Recursive descent with precedence climbing, one grammar for both dialects (what a
-- dialect does not allow, such as functions or || in JMS, is refused when the AST is
-- compiled). Levels, loosest first:
--   1 OR   2 AND   3 NOT   4 comparison, [NOT] BETWEEN / LIKE / IN, IS [NOT] NULL
--   (non associative: one per operand)   5 + - ||   6 * /   7 unary + -
-- A sign before a number literal is folded into the literal ("signed": true), once.
-- Nesting deeper than 100 levels is a syntax error, so no condition exhausts the stack.
-- The AST's node kinds and keys are listed in R__20_conditions_1_ast.sql.

-- Parse from tokens[first_token] while operators bind at least as tightly as
-- min_precedence; returns the subtree and the index of the token after it: an operand,
-- then the infix and postfix operators after it (steps below).
CREATE OR REPLACE FUNCTION aq._condition_parse(tokens aq._condition_token[], first_token integer,
                                               min_precedence integer, depth integer)
RETURNS aq._condition_parsed LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
  result aq._condition_parsed;
  i integer;
  token aq._condition_token;
  sub aq._condition_parsed;
  prec integer; op text; negated boolean; comparison_seen boolean := false; pos integer;
BEGIN
  token := tokens[first_token];
  IF depth > 100 THEN
    PERFORM aq._condition_raise('syntax', token.pos, 'condition is nested too deeply');
  END IF;
  -- an operand: literals and plain names here (the most frequent: no call), the rest in
  -- _condition_parse_operand
  result.next_token := first_token + 1;
  IF token.kind = 'number' THEN
    result.node := jsonb_build_object('kind', 'literal',
                     'type', CASE WHEN token.value ~ '[eE]' THEN 'approximate'
                                  WHEN strpos(token.value, '.') > 0 THEN 'decimal' ELSE 'integer' END,
                     'value', token.value, 'pos', token.pos);
  ELSIF token.kind = 'string' THEN
    IF token.value !~ '^''(?:[^'']|'''')*''$' THEN
      PERFORM aq._condition_raise('syntax', token.pos, 'string literal not properly terminated');
    END IF;
    result.node := jsonb_build_object('kind', 'literal', 'type', 'string',
                     'value', replace(substr(token.value, 2, length(token.value) - 2), '''''', ''''),
                     'pos', token.pos);
  ELSIF token.kind = 'keyword' AND token.value IN ('TRUE', 'FALSE') THEN
    result.node := jsonb_build_object('kind', 'literal', 'type', 'boolean', 'value', token.value, 'pos', token.pos);
  ELSIF token.kind = 'keyword' AND token.value = 'NULL' THEN
    result.node := jsonb_build_object('kind', 'literal', 'type', 'null', 'pos', token.pos);
  ELSIF token.kind = 'identifier'
        AND NOT (tokens[first_token + 1].kind = 'operator' AND tokens[first_token + 1].value IN ('.', '(')) THEN
    -- (as _condition_parse_name makes it, for a name of one plain part)
    result.node := jsonb_build_object('kind', 'identifier', 'path', jsonb_build_array(token.value),
                                      'quoted', '[false]'::jsonb, 'pos', token.pos);
  ELSE
    result := aq._condition_parse_operand(tokens, first_token, min_precedence, depth);
  END IF;
  i := result.next_token;

  -- infix and postfix operators binding at least as tightly as min_precedence
  LOOP
    token := tokens[i];
    op := NULL; negated := false;
    IF token.kind = 'keyword' THEN
      IF token.value = 'OR' THEN prec := 1; op := 'OR';
      ELSIF token.value = 'AND' THEN prec := 2; op := 'AND';
      ELSIF token.value IN ('IS', 'BETWEEN', 'LIKE', 'IN') THEN prec := 4; op := token.value;
      ELSIF token.value = 'NOT' AND tokens[i + 1].kind = 'keyword'
            AND tokens[i + 1].value IN ('BETWEEN', 'LIKE', 'IN') THEN
        prec := 4; op := tokens[i + 1].value; negated := true;
      END IF;
    ELSIF token.kind = 'operator' THEN
      IF token.value IN ('=', '<>', '!=', '<', '>', '<=', '>=') THEN prec := 4; op := token.value;
      ELSIF token.value IN ('+', '-', '||') THEN prec := 5; op := token.value;
      ELSIF token.value IN ('*', '/') THEN prec := 6; op := token.value;
      END IF;
    END IF;
    EXIT WHEN op IS NULL OR prec < min_precedence;
    IF prec = 4 AND comparison_seen THEN
      PERFORM aq._condition_raise('syntax', token.pos, 'unexpected ' || aq._condition_describe(token));
    END IF;
    pos := token.pos;
    i := i + CASE WHEN negated THEN 2 ELSE 1 END;
    IF op IN ('IS', 'BETWEEN', 'LIKE', 'IN') THEN
      sub := aq._condition_parse_predicate(tokens, i, op, negated, result.node, pos, depth);
    ELSE
      -- (a comparison's right operand is an arithmetic expression: comparisons do not chain)
      sub := aq._condition_parse(tokens, i, CASE WHEN prec = 4 THEN 5 ELSE prec + 1 END, depth + 1);
      sub.node := CASE WHEN op IN ('OR', 'AND')
                       THEN jsonb_build_object('kind', lower(op), 'left', result.node, 'right', sub.node, 'pos', pos)
                       ELSE jsonb_build_object('kind', 'binary', 'operator', CASE op WHEN '!=' THEN '<>' ELSE op END,
                                               'left', result.node, 'right', sub.node, 'pos', pos) END;
    END IF;
    result.node := sub.node;
    i := sub.next_token;
    IF prec = 4 THEN comparison_seen := true; END IF;
  END LOOP;
  result.next_token := i;
  RETURN result;
END $f$;

-- An operand at tokens[first_token] other than a literal or a plain name (which
-- _condition_parse reads itself): prefix operators, ( ... ), dotted or quoted identifiers
-- and function calls (min_precedence and depth: the enclosing _condition_parse's).
CREATE OR REPLACE FUNCTION aq._condition_parse_operand(tokens aq._condition_token[], first_token integer,
                                                       min_precedence integer, depth integer)
RETURNS aq._condition_parsed LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
  token aq._condition_token := tokens[first_token];
  result aq._condition_parsed;
  sub aq._condition_parsed;
BEGIN
  result.next_token := first_token + 1;
  IF token.kind = 'keyword' AND token.value = 'NOT' THEN
    IF min_precedence > 3 THEN
      PERFORM aq._condition_raise('syntax', token.pos, 'expected an operand, found "NOT"');
    END IF;
    sub := aq._condition_parse(tokens, first_token + 1, 3, depth + 1);
    result.node := jsonb_build_object('kind', 'not', 'operand', sub.node, 'pos', token.pos);
    result.next_token := sub.next_token;
  ELSIF token.kind = 'operator' AND token.value IN ('+', '-') THEN
    sub := aq._condition_parse(tokens, first_token + 1, 7, depth + 1);
    result.next_token := sub.next_token;
    IF sub.node->>'kind' = 'literal' AND sub.node->>'type' IN ('integer', 'decimal', 'approximate')
       AND NOT sub.node ? 'signed' THEN
      result.node := jsonb_build_object('kind', 'literal', 'type', sub.node->>'type',
                                        'value', CASE WHEN token.value = '-' THEN '-' ELSE '' END || (sub.node->>'value'),
                                        'pos', token.pos, 'signed', true);
    ELSE
      result.node := jsonb_build_object('kind', CASE token.value WHEN '-' THEN 'minus' ELSE 'plus' END,
                                        'operand', sub.node, 'pos', token.pos);
    END IF;
  ELSIF token.kind = 'operator' AND token.value = '(' THEN
    result := aq._condition_parse(tokens, first_token + 1, 1, depth + 1);
    IF tokens[result.next_token].kind <> 'operator' OR tokens[result.next_token].value <> ')' THEN
      PERFORM aq._condition_raise('syntax', tokens[result.next_token].pos,
                                  'expected ")", found ' || aq._condition_describe(tokens[result.next_token]));
    END IF;
    result.next_token := result.next_token + 1;
  ELSIF token.kind IN ('identifier', 'quoted_identifier') THEN
    result := aq._condition_parse_name(tokens, first_token, depth);
  ELSE
    PERFORM aq._condition_raise('syntax', token.pos, 'expected an operand, found ' || aq._condition_describe(token));
  END IF;
  RETURN result;
END $f$;

-- An identifier (a dotted path of plain and quoted names) at tokens[first_token], or a
-- function call: a plain name and its arguments in parentheses.
CREATE OR REPLACE FUNCTION aq._condition_parse_name(tokens aq._condition_token[], first_token integer,
                                                    depth integer)
RETURNS aq._condition_parsed LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
  i integer := first_token;
  token aq._condition_token;
  parts text[] := '{}';
  quoted boolean[] := '{}';
  args aq._condition_parsed;
  result aq._condition_parsed;
BEGIN
  LOOP
    token := tokens[i];
    IF token.kind = 'quoted_identifier' THEN
      IF token.value !~ '^"(?:[^"]|"")+"$' THEN
        PERFORM aq._condition_raise('syntax', token.pos, 'invalid quoted identifier');
      END IF;
      parts := parts || replace(substr(token.value, 2, length(token.value) - 2), '""', '"');
      quoted := quoted || true;
    ELSIF token.kind = 'identifier' THEN
      parts := parts || token.value;
      quoted := quoted || false;
    ELSE
      PERFORM aq._condition_raise('syntax', token.pos,
                                  'expected identifier, found ' || aq._condition_describe(token));
    END IF;
    i := i + 1;
    EXIT WHEN NOT (tokens[i].kind = 'operator' AND tokens[i].value = '.');
    i := i + 1;
  END LOOP;
  IF NOT (tokens[i].kind = 'operator' AND tokens[i].value = '(') THEN
    result.node := jsonb_build_object('kind', 'identifier', 'path', to_jsonb(parts), 'quoted', to_jsonb(quoted),
                                      'pos', tokens[first_token].pos);
    result.next_token := i;
    RETURN result;
  END IF;
  IF cardinality(parts) > 1 OR quoted[1] THEN
    PERFORM aq._condition_raise('syntax', tokens[i].pos, 'unexpected "("');
  END IF;
  args.node := '[]';
  args.next_token := i + 1;
  IF NOT (tokens[i + 1].kind = 'operator' AND tokens[i + 1].value = ')') THEN
    args := aq._condition_parse_list(tokens, i + 1, 1, depth);
    IF NOT (tokens[args.next_token].kind = 'operator' AND tokens[args.next_token].value = ')') THEN
      PERFORM aq._condition_raise('syntax', tokens[args.next_token].pos,
                                  'expected ")", found ' || aq._condition_describe(tokens[args.next_token]));
    END IF;
  END IF;
  result.node := jsonb_build_object('kind', 'function', 'name', upper(parts[1]), 'spelled', parts[1],
                                    'args', args.node, 'pos', tokens[first_token].pos);
  result.next_token := args.next_token + 1;
  RETURN result;
END $f$;

-- One or more comma-separated expressions from tokens[first_token] (a function's arguments,
-- an IN list), each binding at least as tightly as min_precedence; node: their array.
CREATE OR REPLACE FUNCTION aq._condition_parse_list(tokens aq._condition_token[], first_token integer,
                                                    min_precedence integer, depth integer)
RETURNS aq._condition_parsed LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
  result aq._condition_parsed;
  sub aq._condition_parsed;
BEGIN
  result.node := '[]';
  result.next_token := first_token;
  LOOP
    sub := aq._condition_parse(tokens, result.next_token, min_precedence, depth + 1);
    result.node := result.node || jsonb_build_array(sub.node);
    result.next_token := sub.next_token;
    EXIT WHEN NOT (tokens[sub.next_token].kind = 'operator' AND tokens[sub.next_token].value = ',');
    result.next_token := sub.next_token + 1;
  END LOOP;
  RETURN result;
END $f$;

-- The rest of a predicate after its keyword (op, negated by a NOT before it): IS [NOT] NULL,
-- BETWEEN low AND high, LIKE pattern [ESCAPE escape], IN (list), from tokens[first_token];
-- operand: the tree before the keyword, pos: the keyword's position.
CREATE OR REPLACE FUNCTION aq._condition_parse_predicate(tokens aq._condition_token[], first_token integer,
                                                         op text, negated boolean, operand jsonb,
                                                         pos integer, depth integer)
RETURNS aq._condition_parsed LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
  i integer := first_token;
  sub aq._condition_parsed; sub2 aq._condition_parsed;
  result aq._condition_parsed;
BEGIN
  IF op = 'IS' THEN
    IF tokens[i].kind = 'keyword' AND tokens[i].value = 'NOT' THEN negated := true; i := i + 1; END IF;
    IF NOT (tokens[i].kind = 'keyword' AND tokens[i].value = 'NULL') THEN
      PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                  'expected NULL, found ' || aq._condition_describe(tokens[i]));
    END IF;
    result.node := jsonb_build_object('kind', 'is_null', 'negated', negated, 'operand', operand, 'pos', pos);
    result.next_token := i + 1;
  ELSIF op = 'BETWEEN' THEN
    sub := aq._condition_parse(tokens, i, 5, depth + 1);
    i := sub.next_token;
    IF NOT (tokens[i].kind = 'keyword' AND tokens[i].value = 'AND') THEN
      PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                  'expected AND, found ' || aq._condition_describe(tokens[i]));
    END IF;
    sub2 := aq._condition_parse(tokens, i + 1, 5, depth + 1);
    result.node := jsonb_build_object('kind', 'between', 'negated', negated, 'operand', operand,
                                      'low', sub.node, 'high', sub2.node, 'pos', pos);
    result.next_token := sub2.next_token;
  ELSIF op = 'LIKE' THEN
    sub := aq._condition_parse(tokens, i, 5, depth + 1);
    result.next_token := sub.next_token;
    IF tokens[sub.next_token].kind = 'keyword' AND tokens[sub.next_token].value = 'ESCAPE' THEN
      sub2 := aq._condition_parse(tokens, sub.next_token + 1, 5, depth + 1);
      result.next_token := sub2.next_token;
    END IF;
    result.node := jsonb_build_object('kind', 'like', 'negated', negated, 'operand', operand,
                                      'pattern', sub.node, 'escape', sub2.node, 'pos', pos);
  ELSE  -- IN
    IF NOT (tokens[i].kind = 'operator' AND tokens[i].value = '(') THEN
      PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                  'expected "(", found ' || aq._condition_describe(tokens[i]));
    END IF;
    sub := aq._condition_parse_list(tokens, i + 1, 5, depth);
    i := sub.next_token;
    IF NOT (tokens[i].kind = 'operator' AND tokens[i].value = ')') THEN
      PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                  'expected ")", found ' || aq._condition_describe(tokens[i]));
    END IF;
    result.node := jsonb_build_object('kind', 'in', 'negated', negated, 'operand', operand, 'list', sub.node, 'pos', pos);
    result.next_token := i + 1;
  END IF;
  RETURN result;
END $f$;
