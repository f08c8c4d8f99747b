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
-- min_precedence; returns the subtree and the index of the token after it.
CREATE OR REPLACE FUNCTION aq._condition_parse(tokens aq._condition_token[], first_token integer,
                                               min_precedence integer, depth integer)
RETURNS aq._condition_parsed LANGUAGE plpgsql IMMUTABLE AS $f$
DECLARE
  i integer := first_token;
  token aq._condition_token;
  node jsonb; sub aq._condition_parsed; sub2 aq._condition_parsed;
  prec integer; op text; negated boolean; comparison_seen boolean := false; pos integer; literal text;
  parts text[]; quoted boolean[]; args jsonb; escape_node jsonb;
BEGIN
  token := tokens[i];
  IF depth > 100 THEN
    PERFORM aq._condition_raise('syntax', token.pos, 'condition is nested too deeply');
  END IF;

  -- an operand: prefix operators, literals, ( ... ), identifiers and function calls
  IF token.kind = 'keyword' AND token.value = 'NOT' THEN
    IF min_precedence > 3 THEN
      PERFORM aq._condition_raise('syntax', token.pos, 'expected an operand, found "NOT"');
    END IF;
    sub := aq._condition_parse(tokens, i + 1, 3, depth + 1);
    node := jsonb_build_object('kind', 'not', 'operand', sub.node, 'pos', token.pos);
    i := sub.next_token;
  ELSIF token.kind = 'operator' AND token.value IN ('+', '-') THEN
    sub := aq._condition_parse(tokens, i + 1, 7, depth + 1);
    i := sub.next_token;
    IF sub.node->>'kind' = 'literal' AND sub.node->>'type' IN ('integer', 'decimal', 'approximate')
       AND NOT sub.node ? 'signed' THEN
      literal := sub.node->>'value';
      IF token.value = '-' THEN literal := '-' || literal; END IF;
      node := jsonb_build_object('kind', 'literal', 'type', sub.node->>'type', 'value', literal,
                                 'pos', token.pos, 'signed', true);
    ELSE
      node := jsonb_build_object('kind', CASE token.value WHEN '-' THEN 'minus' ELSE 'plus' END,
                                 'operand', sub.node, 'pos', token.pos);
    END IF;
  ELSIF token.kind = 'number' THEN
    node := jsonb_build_object('kind', 'literal',
              'type', CASE WHEN token.value ~ '[eE]' THEN 'approximate'
                           WHEN strpos(token.value, '.') > 0 THEN 'decimal' ELSE 'integer' END,
              'value', token.value, 'pos', token.pos);
    i := i + 1;
  ELSIF token.kind = 'string' THEN
    IF token.value !~ '^''(?:[^'']|'''')*''$' THEN
      PERFORM aq._condition_raise('syntax', token.pos, 'string literal not properly terminated');
    END IF;
    node := jsonb_build_object('kind', 'literal', 'type', 'string',
              'value', replace(substr(token.value, 2, length(token.value) - 2), '''''', ''''),
              'pos', token.pos);
    i := i + 1;
  ELSIF token.kind = 'keyword' AND token.value IN ('TRUE', 'FALSE') THEN
    node := jsonb_build_object('kind', 'literal', 'type', 'boolean', 'value', token.value, 'pos', token.pos);
    i := i + 1;
  ELSIF token.kind = 'keyword' AND token.value = 'NULL' THEN
    node := jsonb_build_object('kind', 'literal', 'type', 'null', 'pos', token.pos);
    i := i + 1;
  ELSIF token.kind = 'operator' AND token.value = '(' THEN
    sub := aq._condition_parse(tokens, i + 1, 1, depth + 1);
    i := sub.next_token;
    IF tokens[i].kind <> 'operator' OR tokens[i].value <> ')' THEN
      PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                  'expected ")", found ' || aq._condition_describe(tokens[i]));
    END IF;
    node := sub.node;
    i := i + 1;
  ELSIF token.kind IN ('identifier', 'quoted_identifier') THEN
    pos := token.pos;
    parts := '{}'; quoted := '{}';
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
    IF tokens[i].kind = 'operator' AND tokens[i].value = '(' THEN
      IF cardinality(parts) > 1 OR quoted[1] THEN
        PERFORM aq._condition_raise('syntax', tokens[i].pos, 'unexpected "("');
      END IF;
      args := '[]';
      i := i + 1;
      IF NOT (tokens[i].kind = 'operator' AND tokens[i].value = ')') THEN
        LOOP
          sub := aq._condition_parse(tokens, i, 1, depth + 1);
          args := args || jsonb_build_array(sub.node);
          i := sub.next_token;
          EXIT WHEN NOT (tokens[i].kind = 'operator' AND tokens[i].value = ',');
          i := i + 1;
        END LOOP;
        IF NOT (tokens[i].kind = 'operator' AND tokens[i].value = ')') THEN
          PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                      'expected ")", found ' || aq._condition_describe(tokens[i]));
        END IF;
      END IF;
      i := i + 1;
      node := jsonb_build_object('kind', 'function', 'name', upper(parts[1]), 'spelled', parts[1],
                                 'args', args, 'pos', pos);
    ELSE
      node := jsonb_build_object('kind', 'identifier', 'path', to_jsonb(parts), 'quoted', to_jsonb(quoted),
                                 'pos', pos);
    END IF;
  ELSE
    PERFORM aq._condition_raise('syntax', token.pos, 'expected an operand, found ' || aq._condition_describe(token));
  END IF;

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
    IF op IN ('OR', 'AND') THEN
      sub := aq._condition_parse(tokens, i, prec + 1, depth + 1);
      node := jsonb_build_object('kind', lower(op), 'left', node, 'right', sub.node, 'pos', pos);
      i := sub.next_token;
    ELSIF op = 'IS' THEN
      IF tokens[i].kind = 'keyword' AND tokens[i].value = 'NOT' THEN negated := true; i := i + 1; END IF;
      IF NOT (tokens[i].kind = 'keyword' AND tokens[i].value = 'NULL') THEN
        PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                    'expected NULL, found ' || aq._condition_describe(tokens[i]));
      END IF;
      i := i + 1;
      node := jsonb_build_object('kind', 'is_null', 'negated', negated, 'operand', node, 'pos', pos);
    ELSIF op = 'BETWEEN' THEN
      sub := aq._condition_parse(tokens, i, 5, depth + 1);
      i := sub.next_token;
      IF NOT (tokens[i].kind = 'keyword' AND tokens[i].value = 'AND') THEN
        PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                    'expected AND, found ' || aq._condition_describe(tokens[i]));
      END IF;
      sub2 := aq._condition_parse(tokens, i + 1, 5, depth + 1);
      i := sub2.next_token;
      node := jsonb_build_object('kind', 'between', 'negated', negated, 'operand', node,
                                 'low', sub.node, 'high', sub2.node, 'pos', pos);
    ELSIF op = 'LIKE' THEN
      sub := aq._condition_parse(tokens, i, 5, depth + 1);
      i := sub.next_token;
      escape_node := NULL;
      IF tokens[i].kind = 'keyword' AND tokens[i].value = 'ESCAPE' THEN
        sub2 := aq._condition_parse(tokens, i + 1, 5, depth + 1);
        i := sub2.next_token;
        escape_node := sub2.node;
      END IF;
      node := jsonb_build_object('kind', 'like', 'negated', negated, 'operand', node,
                                 'pattern', sub.node, 'escape', escape_node, 'pos', pos);
    ELSIF op = 'IN' THEN
      IF NOT (tokens[i].kind = 'operator' AND tokens[i].value = '(') THEN
        PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                    'expected "(", found ' || aq._condition_describe(tokens[i]));
      END IF;
      i := i + 1;
      args := '[]';
      LOOP
        sub := aq._condition_parse(tokens, i, 5, depth + 1);
        args := args || jsonb_build_array(sub.node);
        i := sub.next_token;
        EXIT WHEN NOT (tokens[i].kind = 'operator' AND tokens[i].value = ',');
        i := i + 1;
      END LOOP;
      IF NOT (tokens[i].kind = 'operator' AND tokens[i].value = ')') THEN
        PERFORM aq._condition_raise('syntax', tokens[i].pos,
                                    'expected ")", found ' || aq._condition_describe(tokens[i]));
      END IF;
      i := i + 1;
      node := jsonb_build_object('kind', 'in', 'negated', negated, 'operand', node, 'list', args, 'pos', pos);
    ELSE
      sub := aq._condition_parse(tokens, i, CASE WHEN prec = 4 THEN 5 ELSE prec + 1 END, depth + 1);
      node := jsonb_build_object('kind', 'binary', 'operator', CASE op WHEN '!=' THEN '<>' ELSE op END,
                                 'left', node, 'right', sub.node, 'pos', pos);
      i := sub.next_token;
    END IF;
    IF prec = 4 THEN comparison_seen := true; END IF;
  END LOOP;
  RETURN ROW(node, i)::aq._condition_parsed;
END $f$;
