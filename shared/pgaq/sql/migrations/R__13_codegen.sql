-- Generated functions per queue table: the engine's most frequent statements (enqueue,
-- and dequeue without selection criteria) compiled once as static SQL, so PostgreSQL
-- caches their plans. The SQL text comes from the same builders the dynamic path uses
-- (aq.enqueue_sql, aq.dequeue_sql); names are quoted with format('%I').

CREATE OR REPLACE FUNCTION aq.create_queue_table_functions(t aq.queue_tables) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info;
  modes text[] := ARRAY['BROWSE', 'LOCKED', 'REMOVE', 'REMOVE_NODATA'];
  mode text;
  del boolean;
  body text := '';
  branch text;
  outp text[];
  after text;
  into_result text := 'SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) INTO result FROM o';
  plain text := 'SELECT array_agg(ROW(o.*)::aq.dequeued ORDER BY o.position) FROM o';
  kind text;
BEGIN
  -- a queue_info for the table (queue-specific fields are unused by the builders)
  q := ROW(NULL, t.schema_name, NULL, 'NORMAL_QUEUE', 0, 0, 0, true, true,
           t.id, t.schema_name, t.table_name, t.owner, t.payload_type, t.payload_kind,
           t.sort_list, t.multiple_consumers, t.message_grouping,
           t.sort_list || CASE WHEN t.message_grouping = 'TRANSACTIONAL' THEN '+G' ELSE '' END,
           ('aq$_' || t.table_name || '_r')::name, ('aq$_' || t.table_name || '_e')::name)::aq.queue_info;
  outp := aq.payload_output_expr(q, NULL::aq.transformations, 'm');

  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION %I.%I(p1 name, p2 jsonb, p3 jsonb, p4 bytea[], p5 timestamptz, p6 text,
                                     OUT ids bytea[], OUT any_ready boolean, OUT any_wait boolean)
    LANGUAGE plpgsql AS $body$
    BEGIN
      %s;
    END $body$
  $f$, t.schema_name, 'aq$_' || t.table_name || '_enq',
       replace(aq.enqueue_sql(q, NULL::aq.transformations),
               'SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1) FROM ins',
               'SELECT array_agg(msgid ORDER BY enq_seq), bool_or(state = 0), bool_or(state = 1) INTO ids, any_ready, any_wait FROM ins'));

  -- dequeue: (exception | multi | single) x mode x (delete | keep) x (from start | after position)
  FOREACH kind IN ARRAY ARRAY['EXC', 'MULTI', 'SINGLE'] LOOP
    CONTINUE WHEN kind = 'MULTI' AND NOT t.multiple_consumers;
    branch := '';
    FOREACH mode IN ARRAY modes LOOP
      FOREACH del IN ARRAY ARRAY[true, false] LOOP
        CONTINUE WHEN NOT del AND (kind <> 'SINGLE' OR mode IN ('BROWSE', 'LOCKED'));
        after := ' AND ' || aq.after_position_expr(q.sort_key, CASE WHEN kind = 'MULTI' THEN 'r' ELSE 'm' END, 5);
        branch := branch || format($b$
          ELSIF p12 = %L AND (p14 = %L OR p12 IN ('BROWSE', 'LOCKED')) THEN
            IF p5 IS NULL THEN
              %s;
            ELSE
              %s;
            END IF;$b$, mode, del,
          replace(aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', '', outp, del), plain, into_result),
          replace(aq.dequeue_sql(q, mode, kind = 'MULTI', kind = 'EXC', '', after, outp, del), plain, into_result));
      END LOOP;
    END LOOP;
    body := body || format($b$
      %s %s THEN
        IF false THEN NULL; %s
        END IF;$b$,
      CASE WHEN body = '' THEN 'IF' ELSE 'ELSIF' END,
      CASE kind WHEN 'EXC' THEN 'p2 = 3' WHEN 'MULTI' THEN 'p13' ELSE 'true' END, branch);
  END LOOP;
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION %I.%I(p1 name, p2 integer, p3 bytea, p4 text, p5 bigint[], p6 bigint,
                                     p7 integer, p8 text[], p9 text, p10 timestamptz, p11 text,
                                     p12 text, p13 boolean, p14 boolean)
    RETURNS aq.dequeued[] LANGUAGE plpgsql AS $body$
    DECLARE
      result aq.dequeued[];
    BEGIN
      %s
      END IF;
      RETURN result;
    END $body$
  $f$, t.schema_name, 'aq$_' || t.table_name || '_deq', body);
  EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_enq', t.owner);
  EXECUTE format('ALTER FUNCTION %I.%I OWNER TO %I', t.schema_name, 'aq$_' || t.table_name || '_deq', t.owner);
END $$;
