-- Condition compiler, part 7 of 7: the entry point aq.compile_condition, the retirement of
-- the compiler's pre-split helpers, and the recompilation of cached subscriber rules.
--
--   aq.compile_condition(p_text, p_dialect 'AQ'|'JMS', p_payload regtype,
--                        p_param integer DEFAULT 1, p_offset integer DEFAULT 0)
--     RETURNS aq.compiled_condition (sql text, params text[])
--
-- The text is tokenized (R__20_conditions_2_lexer.sql), parsed into a jsonb AST
-- (R__20_conditions_3_parser.sql) and compiled into a boolean SQL expression over the
-- message row alias `m` (R__20_conditions_4_sql_aq.sql, R__20_conditions_5_sql_jms.sql).
-- Nothing the user wrote is ever pasted into the SQL: identifiers are resolved against a
-- fixed whitelist or against pg_attribute of the payload type and emitted with %I; every
-- literal (and every JMS property name) becomes an element of `params`, referenced as
-- `(($<p_param>)[<p_offset+i>])` followed by a cast. The only constants that appear in the
-- SQL are chosen by the compiler itself (TRUE, FALSE, NULL, 'hex', '' as "no escape").
-- Empty / blank / NULL condition: returns NULL (callers treat that as TRUE). Errors: see
-- R__20_conditions_1_ast.sql; a bad p_dialect, p_param or p_offset is 22023.
--
-- Callers: aq.dequeue_array (R__17) compiles the dequeue condition on each call;
-- aq.rebuild_rules (R__14) compiles subscriber rules into aq.rule_cache, which stores only
-- the generated SQL and its parameters (that SQL calls the runtime helpers of
-- R__20_conditions_6_runtime.sql, never the compiler's private aq._condition_* functions).

CREATE OR REPLACE FUNCTION aq.compile_condition(p_text text, p_dialect text, p_payload regtype,
                                                p_param integer DEFAULT 1, p_offset integer DEFAULT 0)
RETURNS aq.compiled_condition LANGUAGE plpgsql STABLE SECURITY INVOKER AS $f$
DECLARE
  dialect text := upper(p_dialect);
  tokens aq._condition_token[];
  parsed aq._condition_parsed;
  compiled aq._condition_fragment;
  has_header boolean;
  result aq.compiled_condition;
BEGIN
  IF dialect IS NULL OR dialect NOT IN ('AQ', 'JMS') THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('invalid condition dialect %L (expected AQ or JMS)', p_dialect);
  END IF;
  IF p_param IS NULL OR p_param < 1 OR p_offset IS NULL OR p_offset < 0 THEN
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'p_param must be >= 1 and p_offset >= 0';
  END IF;
  IF p_text IS NULL THEN RETURN NULL; END IF;
  tokens := aq._condition_tokenize(p_text);
  IF cardinality(tokens) = 1 THEN RETURN NULL; END IF;   -- only whitespace
  parsed := aq._condition_parse(tokens, 1, 1, 0);
  IF tokens[parsed.next_token].kind <> 'end' THEN
    PERFORM aq._condition_raise('syntax', tokens[parsed.next_token].pos,
                                'unexpected ' || aq._condition_describe(tokens[parsed.next_token]));
  END IF;
  IF dialect = 'JMS' THEN
    has_header := EXISTS (SELECT 1 FROM pg_type t JOIN pg_attribute a ON a.attrelid = t.typrelid
                           WHERE t.oid = p_payload AND a.attname = 'header' AND NOT a.attisdropped
                             AND a.atttypid = 'sys.aq$_jms_header'::regtype);
    compiled := aq._condition_jms(parsed.node, coalesce(has_header, false), p_param, p_offset, '{}');
    result.sql := aq._condition_jms_boolean(compiled.sql, compiled.category, (parsed.node->>'pos')::integer);
  ELSE
    compiled := aq._condition_aq(parsed.node, p_payload, p_param, p_offset, '{}');
    result.sql := aq._condition_aq_boolean(compiled, (parsed.node->>'pos')::integer);
  END IF;
  result.params := coalesce(compiled.params, '{}');
  RETURN result;
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
