-- dbms_aqadm.purge_queue_table(queue_table, purge_condition, purge_options): removes the
-- messages of a queue table that purge_condition selects, with their recipient rows and
-- the notes other parts keep about them.
--
-- purge_condition is Oracle's: a condition over the columns of the AQ$<queue_table> view
-- (R__12), qualified with the alias qtview, e.g. qtview.queue = 'Q1' AND
-- qtview.msg_state = 'PROCESSED'; NULL or '' purges everything. Oracle runs it as SQL.
-- Here it is parsed by pgaq's condition grammar (R__20: tokenizer and parser) and written
-- back as SQL by aq.purge_condition_sql below: column names are checked against the view
-- and quoted with %I, string literals quoted with %L, numbers checked, and only the
-- operators and functions listed there exist. Nothing the caller wrote reaches the SQL
-- as text, so the condition can neither run a statement of its own nor call a function
-- (docs/security.md). It runs as the caller, who must administer the queue table.
--
-- On a multi-consumer queue table the view has one row per message and recipient: the
-- rows the condition selects lose those recipients (qtview.consumer_name = 'A' purges A's
-- deliveries); a message left with no recipient goes, one whose remaining recipients are
-- all done is settled as a dequeue would (aq.finish_messages). The view shows a topic's
-- implicit recipients (R__12_audience) as rows too; the messages a batch holds get real
-- rows for them first (aq.explicitise_held), and the purge goes on as over rows.
--
-- purge_options (dbms_aqadm.aq$_purge_options_t):
--   block => true   both tables are locked in EXCLUSIVE mode for the purge (enqueues and
--                   dequeues wait; reads do not): every message the condition selects is
--                   purged, including those a dequeue had locked (the purge waits for it).
--   block => false  (the default) the purge goes in batches of 1000 rows, locking only the
--                   rows it removes and skipping rows another transaction holds (a message
--                   being dequeued: Oracle's purge without block may leave such messages);
--                   enqueuers never wait for it.
--   delivery_mode   PERSISTENT (the default), BUFFERED or PERSISTENT_OR_BUFFERED (or
--                   Oracle's numbers 1, 2, 3; ORA-25299 otherwise): which messages are
--                   looked at.
-- The purge is part of the caller's transaction (a ROLLBACK undoes it), as every pgaq
-- administrative procedure.

DO $$
BEGIN
  IF to_regtype('dbms_aqadm.aq$_purge_options_t') IS NULL THEN
    CREATE TYPE dbms_aqadm.aq$_purge_options_t AS (block boolean, delivery_mode text);
  END IF;
  IF to_regtype('aq.recipient_key') IS NULL THEN
    CREATE TYPE aq.recipient_key AS (msgid bytea, consumer_name text, address text, protocol integer);
  END IF;
END $$;

-- Oracle's defaults, so SQL callers name only what they set:
--   purge_options => dbms_aqadm.purge_options(block => true)
CREATE OR REPLACE FUNCTION dbms_aqadm.purge_options(block boolean DEFAULT false,
                                                    delivery_mode text DEFAULT 'PERSISTENT')
RETURNS dbms_aqadm.aq$_purge_options_t LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(block, delivery_mode)::dbms_aqadm.aq$_purge_options_t
$$;

-- the delivery modes a purge looks at (Oracle's names or numbers: aq.check_delivery_mode,
-- ORA-25299 otherwise)
CREATE OR REPLACE FUNCTION aq.purge_delivery_modes(p text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE m WHEN 'PERSISTENT_OR_BUFFERED' THEN ARRAY['PERSISTENT', 'BUFFERED'] ELSE ARRAY[m] END
  FROM aq.check_delivery_mode(p, 'purge_options', '{PERSISTENT,BUFFERED,PERSISTENT_OR_BUFFERED}') m
$$;

-- A string literal compared with a column, as Oracle compares it: with a queue name,
-- Oracle's spelling of an unquoted name (upper case) is pgaq's (lower case), so
-- qtview.queue = 'Q1' finds queue q1; with a RAW payload, the string is hex.
CREATE OR REPLACE FUNCTION aq.purge_literal_for(p_column text[], p_literal text[]) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF p_literal[2] = 'lstr' AND p_column[2] = 'qname' AND p_literal[3] = upper(p_literal[3])
     AND p_literal[3] <> lower(p_literal[3]) THEN
    RETURN ARRAY[quote_nullable(lower(p_literal[3])), 'lstr', p_literal[3]];
  ELSIF p_literal[2] = 'lstr' AND p_column[2] = 'raw' AND p_literal[3] ~ '^([0-9A-Fa-f]{2})*$' THEN
    RETURN ARRAY[aq.sql($s$decode({{hex:literal}}, 'hex')$s$, jsonb_build_object('hex', p_literal[3])), 'raw', p_literal[3]];
  END IF;
  RETURN p_literal;
END $$;

-- One node of a parsed purge condition (R__20_conditions_3_parser.sql's AST) as SQL over
-- the alias qtview. p_cols: the view's columns, {"name": "category"} with categories
-- ts (a time), num, str, qname (a queue name), raw, other. Returns ARRAY[sql, category];
-- string literals have category lstr (and their value in the third element), numbers num.
-- Literals, column names, function calls and binary operators are steps of their own
-- (aq.purge_literal_sql and the three after it).
CREATE OR REPLACE FUNCTION aq.purge_node_sql(node jsonb, p_cols jsonb) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  kind text := node->>'kind';
  pos integer := (node->>'pos')::integer;
  a text[];
  b text[];
  c text[];
  el jsonb;
  list text[];
BEGIN
  IF kind = 'literal' THEN
    RETURN aq.purge_literal_sql(node);
  ELSIF kind = 'identifier' THEN
    RETURN aq.purge_identifier_sql(node, p_cols);
  ELSIF kind = 'function' THEN
    RETURN aq.purge_function_sql(node, p_cols);
  ELSIF kind = 'binary' THEN
    RETURN aq.purge_binary_sql(node, p_cols);
  ELSIF kind IN ('minus', 'plus') THEN
    a := aq.purge_node_sql(node->'operand', p_cols);
    RETURN ARRAY[aq.sql('({{sign}}({{a}}))', jsonb_build_object('sign', CASE kind WHEN 'minus' THEN '-' ELSE '+' END, 'a', a[1])), a[2]];

  ELSIF kind IN ('and', 'or') THEN
    a := aq.purge_node_sql(node->'left', p_cols);
    b := aq.purge_node_sql(node->'right', p_cols);
    RETURN ARRAY[aq.sql('({{a}} {{op}} {{b}})', jsonb_build_object('a', a[1], 'op', upper(kind), 'b', b[1])), 'bool'];

  ELSIF kind = 'not' THEN
    a := aq.purge_node_sql(node->'operand', p_cols);
    RETURN ARRAY[aq.sql('(NOT {{a}})', jsonb_build_object('a', a[1])), 'bool'];

  ELSIF kind = 'is_null' THEN
    a := aq.purge_node_sql(node->'operand', p_cols);
    RETURN ARRAY[aq.sql('({{a}} IS {{not}}NULL)', jsonb_build_object('a', a[1], 'not', CASE WHEN (node->>'negated')::boolean THEN 'NOT ' ELSE '' END)), 'bool'];

  ELSIF kind = 'between' THEN
    a := aq.purge_node_sql(node->'operand', p_cols);
    b := aq.purge_node_sql(node->'low', p_cols);
    c := aq.purge_node_sql(node->'high', p_cols);
    RETURN ARRAY[aq.sql('({{a}} {{not}}BETWEEN {{b}} AND {{c}})', jsonb_build_object('a', a[1],
                        'not', CASE WHEN (node->>'negated')::boolean THEN 'NOT ' ELSE '' END, 'b', b[1], 'c', c[1])), 'bool'];

  ELSIF kind = 'in' THEN
    a := aq.purge_node_sql(node->'operand', p_cols);
    list := '{}';
    FOR el IN SELECT * FROM jsonb_array_elements(node->'list') LOOP
      b := aq.purge_literal_for(a, aq.purge_node_sql(el, p_cols));
      list := list || b[1];
    END LOOP;
    RETURN ARRAY[aq.sql('({{a}} {{not}}IN ({{list}}))', jsonb_build_object('a', a[1],
                        'not', CASE WHEN (node->>'negated')::boolean THEN 'NOT ' ELSE '' END,
                        'list', array_to_string(list, ', '))), 'bool'];

  ELSIF kind = 'like' THEN
    a := aq.purge_node_sql(node->'operand', p_cols);
    b := aq.purge_node_sql(node->'pattern', p_cols);
    IF jsonb_typeof(node->'escape') = 'object' THEN
      c := aq.purge_node_sql(node->'escape', p_cols);
      IF c[2] <> 'lstr' OR length(c[3]) <> 1 THEN
        PERFORM aq._condition_raise('syntax', (node->'escape'->>'pos')::integer,
                                    'ESCAPE needs a string literal of exactly one character');
      END IF;
    ELSE
      c := ARRAY['''''', 'lstr'];  -- Oracle: no escape character unless one is given
    END IF;
    RETURN ARRAY[aq.sql('(({{a}})::text {{not}}LIKE {{b}} ESCAPE {{c}})', jsonb_build_object('a', a[1],
                        'not', CASE WHEN (node->>'negated')::boolean THEN 'NOT ' ELSE '' END, 'b', b[1], 'c', c[1])), 'bool'];
  END IF;
  PERFORM aq._condition_raise('syntax', pos, 'unsupported construct');
  RETURN NULL;
END $$;

-- A literal of a purge condition (aq.purge_node_sql).
CREATE OR REPLACE FUNCTION aq.purge_literal_sql(node jsonb) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  pos integer := (node->>'pos')::integer;
BEGIN
  CASE node->>'type'
  WHEN 'null' THEN RETURN ARRAY['NULL', 'null'];
  WHEN 'boolean' THEN RETURN ARRAY[CASE node->>'value' WHEN 'TRUE' THEN 'true' ELSE 'false' END, 'bool'];
  WHEN 'string' THEN RETURN ARRAY[quote_nullable(node->>'value'), 'lstr', node->>'value'];
  ELSE
    IF aq.try_numeric(node->>'value') IS NULL THEN
      PERFORM aq._condition_raise('syntax', pos, 'numeric literal out of range');
    END IF;
    RETURN ARRAY[aq.sql('{{value:literal}}::numeric', jsonb_build_object('value', aq.try_numeric(node->>'value')::text)), 'num'];
  END CASE;
END $$;

-- A column name of a purge condition, or SYSDATE and its kin (aq.purge_node_sql).
CREATE OR REPLACE FUNCTION aq.purge_identifier_sql(node jsonb, p_cols jsonb) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  pos integer := (node->>'pos')::integer;
  parts text[];
  quoted boolean[];
  nm text;
BEGIN
  SELECT array_agg(e ORDER BY o) INTO parts FROM jsonb_array_elements_text(node->'path') WITH ORDINALITY x(e, o);
  SELECT array_agg(e::boolean ORDER BY o) INTO quoted FROM jsonb_array_elements_text(node->'quoted') WITH ORDINALITY x(e, o);
  IF cardinality(parts) = 1 AND NOT quoted[1]
     AND upper(parts[1]) IN ('SYSDATE', 'SYSTIMESTAMP', 'CURRENT_TIMESTAMP', 'LOCALTIMESTAMP') THEN
    RETURN ARRAY['statement_timestamp()', 'ts'];
  END IF;
  -- qtview.<column>, Oracle's form (an unqualified column is taken too); names of the
  -- view are lower case: Oracle's unquoted upper-case names and quoted ones both match
  IF cardinality(parts) = 2 AND lower(parts[1]) = 'qtview' THEN
    nm := lower(parts[2]);
  ELSIF cardinality(parts) = 1 THEN
    nm := lower(parts[1]);
  END IF;
  IF nm IS NULL OR NOT p_cols ? nm THEN
    PERFORM aq._condition_raise('ident', pos, array_to_string(parts, '.'));
  END IF;
  RETURN ARRAY[aq.sql('qtview.{{column:ident}}', jsonb_build_object('column', nm)), p_cols->>nm];
END $$;

-- A function call of a purge condition: only the functions listed here exist
-- (aq.purge_node_sql).
CREATE OR REPLACE FUNCTION aq.purge_function_sql(node jsonb, p_cols jsonb) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  pos integer := (node->>'pos')::integer;
  fn text := node->>'name';
  args text[] := '{}';
  a text[];
  el jsonb;
BEGIN
  FOR el IN SELECT * FROM jsonb_array_elements(node->'args') LOOP
    a := aq.purge_node_sql(el, p_cols);
    args := args || a[1];
    IF fn IN ('TO_DATE', 'TO_TIMESTAMP') AND a[2] <> 'lstr' THEN
      PERFORM aq._condition_raise('type', (el->>'pos')::integer, fn || ' takes string literals');
    END IF;
  END LOOP;
  IF fn IN ('UPPER', 'LOWER', 'TRIM', 'LENGTH') AND cardinality(args) <> 1
     OR fn IN ('NVL') AND cardinality(args) <> 2
     OR fn IN ('COALESCE') AND cardinality(args) < 1
     OR fn IN ('TO_DATE', 'TO_TIMESTAMP') AND cardinality(args) NOT IN (1, 2) THEN
    PERFORM aq._condition_raise('args', pos, fn);
  END IF;
  CASE fn
  -- (the arguments: SQL this function made, user text only quoted as literals)
  WHEN 'UPPER', 'LOWER' THEN RETURN ARRAY[aq.sql('{{fn}}(({{a}})::text)', jsonb_build_object('fn', lower(fn), 'a', args[1])), 'str'];
  WHEN 'TRIM' THEN RETURN ARRAY[aq.sql('btrim(({{a}})::text)', jsonb_build_object('a', args[1])), 'str'];
  WHEN 'LENGTH' THEN RETURN ARRAY[aq.sql('length(({{a}})::text)', jsonb_build_object('a', args[1])), 'num'];
  WHEN 'NVL', 'COALESCE' THEN
    RETURN ARRAY[aq.sql('COALESCE({{args}})', jsonb_build_object('args', array_to_string(args, ', '))), 'other'];
  WHEN 'TO_DATE', 'TO_TIMESTAMP' THEN
    -- Oracle's common format elements (YYYY MM DD HH24 MI SS) mean the same in PostgreSQL
    IF cardinality(args) = 1 THEN
      RETURN ARRAY[aq.sql('({{a}})::timestamptz', jsonb_build_object('a', args[1])), 'ts'];
    END IF;
    RETURN ARRAY[aq.sql('to_timestamp({{a}}, {{b}})', jsonb_build_object('a', args[1], 'b', args[2])), 'ts'];
  ELSE
    PERFORM aq._condition_raise('ident', pos, node->>'spelled');
  END CASE;
  RETURN NULL;
END $$;

-- A binary operator of a purge condition: arithmetic (Oracle's date arithmetic too),
-- concatenation, comparison (aq.purge_node_sql).
CREATE OR REPLACE FUNCTION aq.purge_binary_sql(node jsonb, p_cols jsonb) RETURNS text[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  op text := node->>'operator';
  a text[] := aq.purge_node_sql(node->'left', p_cols);
  b text[] := aq.purge_node_sql(node->'right', p_cols);
BEGIN
  IF op IN ('+', '-') AND a[2] = 'ts' AND b[2] = 'num' THEN
    -- Oracle's date arithmetic: a number of days
    RETURN ARRAY[aq.sql('({{a}} {{op}} make_interval(secs => ({{b}}) * 86400))', jsonb_build_object('a', a[1], 'op', op, 'b', b[1])), 'ts'];
  ELSIF op = '+' AND a[2] = 'num' AND b[2] = 'ts' THEN
    RETURN ARRAY[aq.sql('({{b}} + make_interval(secs => ({{a}}) * 86400))', jsonb_build_object('a', a[1], 'b', b[1])), 'ts'];
  ELSIF op = '-' AND a[2] = 'ts' AND b[2] = 'ts' THEN
    RETURN ARRAY[aq.sql('(extract(epoch FROM {{a}} - {{b}}) / 86400)', jsonb_build_object('a', a[1], 'b', b[1])), 'num'];
  ELSIF op IN ('+', '-', '*', '/') THEN
    RETURN ARRAY[aq.sql('(({{a}})::numeric {{op}} ({{b}})::numeric)', jsonb_build_object('a', a[1], 'op', op, 'b', b[1])), 'num'];
  ELSIF op = '||' THEN
    RETURN ARRAY[aq.sql('concat({{a}}, {{b}})', jsonb_build_object('a', a[1], 'b', b[1])), 'str'];
  END IF;
  b := aq.purge_literal_for(a, b);
  a := aq.purge_literal_for(b, a);
  -- (op: the parser's comparison operator, a token of a fixed set)
  RETURN ARRAY[aq.sql('({{a}} {{op}} {{b}})', jsonb_build_object('a', a[1], 'op', op, 'b', b[1])), 'bool'];
END $$;

-- The purge condition as SQL over qtview, the AQ$ view of queue table t; NULL for none.
CREATE OR REPLACE FUNCTION aq.purge_condition_sql(t aq.queue_tables, p_condition text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
DECLARE
  tokens aq._condition_token[];
  parsed aq._condition_parsed;
  cols jsonb;
  r text[];
BEGIN
  IF p_condition IS NULL OR btrim(p_condition) = '' THEN RETURN NULL; END IF;
  tokens := aq._condition_tokenize(p_condition);
  IF cardinality(tokens) = 1 THEN RETURN NULL; END IF;
  parsed := aq._condition_parse(tokens, 1, 1, 0);
  IF tokens[parsed.next_token].kind <> 'end' THEN
    PERFORM aq._condition_raise('syntax', tokens[parsed.next_token].pos,
                                'unexpected ' || aq._condition_describe(tokens[parsed.next_token]));
  END IF;
  SELECT jsonb_object_agg(a.attname, CASE
           WHEN a.attname IN ('queue', 'exception_queue', 'original_queue_name') THEN 'qname'
           WHEN a.atttypid IN ('timestamptz'::regtype, 'timestamp'::regtype, 'date'::regtype) THEN 'ts'
           WHEN a.atttypid IN ('int2'::regtype, 'int4'::regtype, 'int8'::regtype, 'numeric'::regtype,
                               'float4'::regtype, 'float8'::regtype) THEN 'num'
           WHEN a.atttypid IN ('text'::regtype, 'name'::regtype, 'varchar'::regtype) THEN 'str'
           WHEN a.atttypid = 'bytea'::regtype THEN 'raw'
           ELSE 'other' END)
    INTO cols
    FROM pg_attribute a
   WHERE a.attrelid = format('%I.%I', t.schema_name, 'aq$' || t.table_name)::regclass
     AND a.attnum > 0 AND NOT a.attisdropped;
  r := aq.purge_node_sql(parsed.node, cols);
  IF r[2] NOT IN ('bool', 'null', 'other') THEN
    PERFORM aq._condition_raise('type', (parsed.node->>'pos')::integer, 'the condition is not a boolean');
  END IF;
  RETURN r[1];
END $$;

-- Notes about messages of the table that the purge removed: deferred settlements and
-- noted dequeue attempts (R__17, R__80). Definer (the notes are the monitor's), and
-- harmless for anybody: only notes of messages no longer in the table go.
CREATE OR REPLACE FUNCTION aq.forget_purged(p_table_id integer, p_ids bytea[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  t aq.queue_tables;
  gone bytea[];
BEGIN
  SELECT * INTO t FROM aq.queue_tables WHERE id = p_table_id;
  IF NOT FOUND OR p_ids IS NULL THEN RETURN; END IF;
  EXECUTE aq.sql('SELECT array_agg(x) FROM unnest($1) x WHERE NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{table:ident}} m WHERE m.msgid = x)',
                 jsonb_build_object('schema', t.schema_name, 'table', t.table_name)) INTO gone USING p_ids;
  IF gone IS NULL THEN RETURN; END IF;
  DELETE FROM aq.deferred_settlements d
   WHERE d.msgid = ANY (gone) AND d.queue_id IN (SELECT q.id FROM aq.queues q WHERE q.queue_table_id = t.id);
  DELETE FROM aq.pending_attempts p
   WHERE p.msgid = ANY (gone) AND p.queue_id IN (SELECT q.id FROM aq.queues q WHERE q.queue_table_id = t.id);
END $$;
REVOKE EXECUTE ON FUNCTION aq.forget_purged(integer, bytea[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.forget_purged(integer, bytea[]) TO PUBLIC;

-- A recipient row's key, built by field name (callers name each field); a SQL function of
-- one SELECT, inlined where it is used
CREATE OR REPLACE FUNCTION aq.new_recipient_key(msgid bytea, consumer_name text, address text, protocol integer)
RETURNS aq.recipient_key
LANGUAGE sql IMMUTABLE AS $$ SELECT ROW(msgid, consumer_name, address, protocol)::aq.recipient_key $$;

-- The table of t that holds the messages of delivery class p_class: t itself for
-- PERSISTENT, its UNLOGGED companion for BUFFERED (R__11_buffered).
CREATE OR REPLACE FUNCTION aq.purge_class_table(t aq.queue_tables, p_class text) RETURNS aq.queue_tables
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_class = 'BUFFERED' THEN aq.buffered_table(t) ELSE t END
$$;

-- The names the purge's statements use for table t: its schema, its messages, its recipients.
CREATE OR REPLACE FUNCTION aq.purge_table_args(t aq.queue_tables) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('schema', t.schema_name, 'table', t.table_name,
                            'recipients', 'aq$_' || t.table_name || '_r')
$$;

-- block => true: both tables of t in EXCLUSIVE mode until the transaction ends (enqueues
-- and dequeues wait; reads do not).
CREATE OR REPLACE FUNCTION aq.purge_lock(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  args jsonb := aq.purge_table_args(t);
BEGIN
  IF NOT t.multiple_consumers THEN
    EXECUTE aq.sql('LOCK TABLE {{schema:ident}}.{{table:ident}} IN EXCLUSIVE MODE', args);
    RETURN;
  END IF;
  -- enqueuers take the message table first, dequeuers the recipients table (and, taking
  -- an implicit recipient, the message table: its row FOR KEY SHARE): waiting for one
  -- while holding the other could deadlock, so both are taken at once or neither (a lock
  -- taken in the block that failed is let go with it)
  LOOP
    BEGIN
      EXECUTE aq.sql('LOCK TABLE {{schema:ident}}.{{table:ident}}, {{schema:ident}}.{{recipients:ident}} IN EXCLUSIVE MODE NOWAIT', args);
      RETURN;
    EXCEPTION WHEN lock_not_available THEN
      PERFORM pg_sleep(0.01);
    END;
  END LOOP;
END $$;

-- Purges from t (a single-consumer queue table or its companion) the messages among
-- p_selected, in batches of p_batch: the rows this purge can lock (p_args: the view, the
-- condition and the lock clause, see aq.purge_messages), the condition again on those (a
-- row may have changed before it was locked), and their removal. Returns how many went.
CREATE OR REPLACE FUNCTION aq.purge_single_consumer(t aq.queue_tables, p_args jsonb, p_selected bytea[],
                                                    p_modes text[], p_batch integer)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  args jsonb := p_args || aq.purge_table_args(t);
  held bytea[];
  mine bytea[];
  gone bigint;
  purged bigint := 0;
BEGIN
  FOR i IN 1 .. coalesce(cardinality(p_selected), 0) BY p_batch LOOP
    EXECUTE aq.sql('SELECT array_agg(msgid) FROM (SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY ($1) AND delivery_mode = ANY ($2) ORDER BY msgid {{lock}}) x', args)
      INTO held USING p_selected[i:i + p_batch - 1], p_modes;
    CONTINUE WHEN held IS NULL;
    EXECUTE aq.sql($f$SELECT array_agg(k) FROM (
                       SELECT decode(qtview.msg_id, 'hex') AS k FROM {{view}}
                       WHERE decode(qtview.msg_id, 'hex') = ANY ($1) AND ({{cond}})) x$f$, args)
      INTO mine USING held;
    CONTINUE WHEN mine IS NULL;
    EXECUTE aq.sql('DELETE FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY ($1)', args) USING mine;
    GET DIAGNOSTICS gone = ROW_COUNT;
    purged := purged + gone;
    PERFORM aq.forget_purged(t.id, mine);
  END LOOP;
  RETURN purged;
END $$;

-- Purges from t (a multi-consumer queue table or its companion, of delivery class
-- p_class) the recipient rows among p_selected (in message order, so that a message's
-- rows fall in one batch), in batches of p_batch; then the messages they leave without a
-- recipient (aq.purge_settle). Returns how many recipient rows went.
CREATE OR REPLACE FUNCTION aq.purge_multi_consumer(t aq.queue_tables, p_class text, p_args jsonb,
                                                   p_selected aq.recipient_key[], p_modes text[],
                                                   p_batch integer)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  args jsonb := p_args || aq.purge_table_args(t);
  keys aq.recipient_key[];
  held bytea[];
  took aq.recipient_key[];
  gone bigint;
  purged bigint := 0;
BEGIN
  FOR i IN 1 .. coalesce(cardinality(p_selected), 0) BY p_batch LOOP
    keys := p_selected[i:i + p_batch - 1];
    -- message rows first, then recipient rows, in the order dequeue settlement takes
    -- them (R__17); what another transaction holds is skipped
    EXECUTE aq.sql('SELECT array_agg(msgid) FROM (SELECT msgid FROM {{schema:ident}}.{{table:ident}} WHERE msgid = ANY ($1) AND delivery_mode = ANY ($2) ORDER BY msgid {{lock}}) x', args)
      INTO held USING ARRAY(SELECT DISTINCT (k).msgid FROM unnest(keys) k), p_modes;
    CONTINUE WHEN held IS NULL;
    -- implicit recipients (R__12_audience) become rows first, so that what follows finds
    -- every recipient as before. With the message rows held no dequeue is taking one of
    -- them (a take holds its message row FOR KEY SHARE), so this waits for nobody.
    IF p_class = 'PERSISTENT' THEN
      PERFORM aq.explicitise_held(t, held);
    END IF;
    EXECUTE aq.sql($f$SELECT array_agg(aq.new_recipient_key(msgid => r.msgid, consumer_name => r.consumer_name,
                                                            address => r.address, protocol => r.protocol))
                       FROM (SELECT * FROM {{schema:ident}}.{{recipients:ident}} r
                             WHERE r.msgid = ANY ($2)
                               AND aq.new_recipient_key(msgid => r.msgid, consumer_name => r.consumer_name,
                                                        address => r.address, protocol => r.protocol) = ANY ($1)
                             ORDER BY r.msgid, r.consumer_name, r.address, r.protocol {{lock}}) r$f$, args)
      INTO took USING keys, held;
    CONTINUE WHEN took IS NULL;
    -- still selected, now that they are locked
    EXECUTE aq.sql($f$SELECT array_agg(k) FROM (
                       SELECT aq.new_recipient_key(msgid => decode(qtview.msg_id, 'hex'),
                                                   consumer_name => coalesce(qtview.consumer_name, ''),
                                                   address => coalesce(qtview.address, ''),
                                                   protocol => qtview.protocol) AS k
                       FROM {{view}} WHERE decode(qtview.msg_id, 'hex') = ANY ($2) AND ({{cond}})) x
                       WHERE k = ANY ($1)$f$, args)
      INTO took USING took, held;
    CONTINUE WHEN took IS NULL;
    EXECUTE aq.sql($f$DELETE FROM {{schema:ident}}.{{recipients:ident}} r
                      WHERE r.msgid = ANY ($2)
                        AND aq.new_recipient_key(msgid => r.msgid, consumer_name => r.consumer_name,
                                                 address => r.address, protocol => r.protocol) = ANY ($1)$f$, args)
      USING took, held;
    GET DIAGNOSTICS gone = ROW_COUNT;
    purged := purged + gone;
    PERFORM aq.purge_settle(t, p_class, ARRAY(SELECT DISTINCT (k).msgid FROM unnest(took) k));
  END LOOP;
  RETURN purged;
END $$;

-- After recipient rows of messages p_ids of t (class p_class) went: the messages left
-- without a recipient go; the others are settled as a dequeue would if their remaining
-- recipients are all done (aq.finish_messages).
CREATE OR REPLACE FUNCTION aq.purge_settle(t aq.queue_tables, p_class text, p_ids bytea[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  args jsonb := aq.purge_table_args(t);
  emptied bytea[];
  left_over bytea[];
  q aq.queue_info;
BEGIN
  EXECUTE aq.sql($f$WITH d AS (DELETE FROM {{schema:ident}}.{{table:ident}} m WHERE m.msgid = ANY ($1)
                                 AND NOT EXISTS (SELECT 1 FROM {{schema:ident}}.{{recipients:ident}} r WHERE r.msgid = m.msgid)
                               RETURNING m.msgid)
                    SELECT array_agg(msgid) FROM d$f$, args)
    INTO emptied USING p_ids;
  PERFORM aq.forget_purged(t.id, emptied);
  FOR q IN SELECT * FROM aq.queue_info x WHERE x.table_id = t.id AND x.queue_type = 'NORMAL_QUEUE'
           ORDER BY x.queue_id LOOP
    EXECUTE aq.sql('SELECT array_agg(msgid) FROM {{schema:ident}}.{{table:ident}} WHERE q_name = $1 AND msgid = ANY ($2)', args)
      INTO left_over USING q.queue_name, p_ids;
    IF left_over IS NOT NULL THEN
      PERFORM aq.finish_messages(CASE WHEN p_class = 'BUFFERED' THEN aq.buffered_info(q) ELSE q END, left_over);
    END IF;
  END LOOP;
END $$;

-- The purge itself, for dbms_aqadm.purge_queue_table and aq.purge (R__92): checks the
-- caller may, compiles the condition, takes the locks block asks for, reads once what the
-- condition selects in the AQ$ view (a scan per batch would read the whole table again
-- each time) and purges it class by class. Returns how many rows of the view the
-- condition selected (one per message, or per message and recipient on a multi-consumer
-- table) and how many of those it removed; p_dry_run selects only (no lock, nothing goes).
CREATE OR REPLACE FUNCTION aq.purge_messages(p_queue_table text, p_condition text, p_block boolean,
                                             p_delivery_mode text, p_dry_run boolean,
                                             OUT selected bigint, OUT purged bigint)
LANGUAGE plpgsql AS $$
DECLARE
  t aq.queue_tables := aq.resolve_queue_table(p_queue_table);
  modes text[] := aq.purge_delivery_modes(p_delivery_mode);
  batch constant integer := 1000;
  args jsonb;  -- the statements', for every table
  ids bytea[];
  keys aq.recipient_key[];
  cls text;
BEGIN
  IF NOT aq.may_manage(t.schema_name) THEN
    PERFORM aq.err(1031, format('insufficient privileges to purge queue table %s.%s', t.schema_name, t.table_name), '42501');
  END IF;
  -- (view: the AQ$ view's own definition, PostgreSQL's text of pgaq's view, not the
  -- caller's, so that an administrator who does not own the table reads it with the table
  -- privileges AQ administrators have; cond: the condition compiled by
  -- aq.purge_condition_sql; lock: the rows' lock clause, fixed text)
  args := jsonb_build_object(
    'cond', coalesce(aq.purge_condition_sql(t, p_condition), 'true'),
    'view', aq.sql('({{view}}) qtview', jsonb_build_object('view', rtrim(btrim(
              pg_get_viewdef(format('%I.%I', t.schema_name, 'aq$' || t.table_name)::regclass)), ';'))),
    'lock', CASE WHEN p_block THEN 'FOR UPDATE' ELSE 'FOR UPDATE SKIP LOCKED' END);
  IF p_block AND NOT p_dry_run THEN
    FOREACH cls IN ARRAY modes LOOP
      PERFORM aq.purge_lock(aq.purge_class_table(t, cls));
    END LOOP;
  END IF;
  purged := 0;
  BEGIN
    IF NOT t.multiple_consumers THEN
      EXECUTE aq.sql($f$SELECT array_agg(decode(qtview.msg_id, 'hex')) FROM {{view}} WHERE ({{cond}})$f$, args)
        INTO ids;
      selected := coalesce(cardinality(ids), 0);
    ELSE
      EXECUTE aq.sql($f$SELECT array_agg(k ORDER BY (k).msgid) FROM (
                         SELECT aq.new_recipient_key(msgid => decode(qtview.msg_id, 'hex'),
                                                     consumer_name => coalesce(qtview.consumer_name, ''),
                                                     address => coalesce(qtview.address, ''),
                                                     protocol => qtview.protocol) AS k
                         FROM {{view}} WHERE ({{cond}})) x$f$, args)
        INTO keys;
      selected := coalesce(cardinality(keys), 0);
    END IF;
    IF p_dry_run THEN RETURN; END IF;
    FOREACH cls IN ARRAY modes LOOP
      IF NOT t.multiple_consumers THEN
        purged := purged + aq.purge_single_consumer(aq.purge_class_table(t, cls), args, ids, modes, batch);
      ELSE
        purged := purged + aq.purge_multi_consumer(aq.purge_class_table(t, cls), cls, args, keys, modes, batch);
      END IF;
    END LOOP;
  EXCEPTION
    WHEN undefined_function OR datatype_mismatch OR invalid_text_representation
         OR invalid_datetime_format OR datetime_field_overflow OR ambiguous_function THEN
      -- the condition compares what does not compare (PostgreSQL types it when it runs)
      PERFORM aq.err(932, format('inconsistent datatypes in purge_condition: %s', SQLERRM), '42804');
  END;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqadm.purge_queue_table(
    queue_table text,
    purge_condition text,
    purge_options dbms_aqadm.aq$_purge_options_t DEFAULT NULL)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.purge_messages(p_queue_table => queue_table, p_condition => purge_condition,
                            p_block => coalesce((purge_options).block, false),
                            p_delivery_mode => (purge_options).delivery_mode, p_dry_run => false);
END $$;
