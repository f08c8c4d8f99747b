-- Templates with named placeholders: the engine's generated SQL is written once, as text you
-- can read (R__13_templates.sql), and filled by name, never by position or by patching one
-- builder's output with replace().
--
--   {{name}}          the argument as SQL text: a fragment another template or builder made
--                     from fixed text, or a parameter reference ($3, p_queue, 1)
--   {{name:ident}}    the argument quoted as an identifier (quote_ident)
--   {{name:literal}}  the argument quoted as a literal (quote_nullable)
--   {{> template}}    another template's text, placeholders and all (defined before)
--
-- Every placeholder needs its argument, not NULL except where quoted as a literal (a
-- misspelt name or a fragment a builder could not make fails when the SQL is generated,
-- not when it runs); arguments a template does not use are ignored, so one set of
-- arguments can fill a statement and its parts. User text never reaches a template except
-- through :ident or :literal.
--
-- aq.define_template compiles each template into a function of its own,
-- aq.render_<name, . and other signs as _>(args): one format() call. The statements built
-- per call (the dynamic dequeue's) call those directly; aq.render(name, args) is the same
-- by name.
--
-- The rule: every dynamic statement of the R__ files is written in this notation, so there
-- is one to read; none is built with format()'s positional %I/%L/%s (format() stays for
-- messages). Two entry points, one parser (aq.template_parse): a named template
-- (R__13_templates.sql, or the top of the R__11/R__12 file whose functions call it, which
-- are replaced before R__13 runs) for the statements of hot paths (enqueue, dequeue and
-- settling, scan floor, the audience's per-call code, the monitor's passes) and for the code
-- generated per queue table; aq.sql(template, args) inline for one-off statements of admin
-- paths (DDL, GRANT, LOCK), where parsing the text on each call costs nothing that
-- matters. (The one
-- format() left builds the call of a compiled template by its name, in aq.render below:
-- the notation's own dispatch. Not statements, and left as they are: format('%I.%I') naming
-- a relation for a regclass or a function for to_regprocedure, and aq.implicit_expr and aq.audience_window_expr, IMMUTABLE
-- builders of fixed fragments that a caller's plan folds to a constant, which a template's
-- STABLE function would not.) tests/unit/test_sql_idiom.py holds the files to it.

CREATE OR REPLACE FUNCTION aq.template_function(p_name text) RETURNS name
LANGUAGE sql IMMUTABLE AS $$
  SELECT ('render_' || regexp_replace(p_name, '[^a-z0-9]+', '_', 'g'))::name
$$;

-- The parse both entry points share: the body with the parts it includes, the format()
-- string it becomes (every placeholder a %s), and its placeholders with their quoting, in
-- order.
CREATE OR REPLACE FUNCTION aq.template_parse(p_name text, p_body text, OUT expanded text,
    OUT fmt text, OUT holes text[], OUT quoting text[])
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  bad text;  -- the first placeholder with an unknown quoting, as name:quoting
  part text[];
BEGIN
  expanded := p_body;
  IF strpos(p_body, '{{>') > 0 THEN
    FOR part IN SELECT regexp_matches(p_body, '\{\{> ([a-z_.]+)\}\}', 'g') LOOP
      SELECT replace(expanded, '{{> ' || part[1] || '}}', t.body) INTO expanded
      FROM aq.sql_templates t WHERE t.name = part[1];
      IF NOT FOUND THEN
        PERFORM aq.err(600, format('internal error: SQL template %s includes %s, not defined before it',
                                   p_name, part[1]), 'XX000');
      END IF;
    END LOOP;
  END IF;
  SELECT coalesce(array_agg(h.m[1] ORDER BY h.i), '{}'),
         coalesce(array_agg(coalesce(h.m[2], 'sql') ORDER BY h.i), '{}'),
         (array_agg(h.m[1] || ':' || h.m[2] ORDER BY h.i) FILTER (WHERE h.m[2] NOT IN ('ident', 'literal')))[1]
    INTO holes, quoting, bad
  FROM regexp_matches(expanded, '\{\{([a-z_]+)(?::([a-z]+))?\}\}', 'g') WITH ORDINALITY AS h(m, i);
  IF bad IS NOT NULL THEN
    PERFORM aq.err(600, format('internal error: SQL template %s: unknown quoting {{%s}}', p_name, bad),
                   'XX000');
  END IF;
  fmt := regexp_replace(replace(expanded, '%', '%%'), '\{\{[a-z_]+(?::[a-z]+)?\}\}', '%s', 'g');
END $$;

CREATE OR REPLACE FUNCTION aq.define_template(p_name text, p_body text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, aq, pg_temp AS $def$
DECLARE
  parsed record;
  vals text;
  nulls text;
BEGIN
  -- one template, one function: names that differ only in signs would share it
  IF aq.template_function(p_name) = 'render_check' OR EXISTS (
       SELECT 1 FROM aq.sql_templates t
       WHERE t.name <> p_name AND aq.template_function(t.name) = aq.template_function(p_name)) THEN
    PERFORM aq.err(600, format('internal error: SQL template %s: its function name %s is taken',
                               p_name, aq.template_function(p_name)), 'XX000');
  END IF;
  parsed := aq.template_parse(p_name, p_body);
  SELECT coalesce(string_agg(E',\n    ' || CASE x.q
           WHEN 'sql' THEN v
           WHEN 'ident' THEN 'pg_catalog.quote_ident(' || v || ')'
           ELSE 'pg_catalog.quote_nullable(' || v || ')' END, '' ORDER BY x.i), '') INTO vals
  FROM unnest(parsed.holes, parsed.quoting) WITH ORDINALITY AS x(h, q, i),
       LATERAL (SELECT 'p_args OPERATOR(pg_catalog.->>) ' || quote_literal(x.h) AS v) a;
  SELECT coalesce(string_agg(DISTINCT E'\n     OR (p_args OPERATOR(pg_catalog.->>) ' || quote_literal(x.h) || ') IS NULL',
                             '' ORDER BY E'\n     OR (p_args OPERATOR(pg_catalog.->>) ' || quote_literal(x.h) || ') IS NULL'), '')
    INTO nulls
  FROM unnest(parsed.holes, parsed.quoting) AS x(h, q) WHERE x.q <> 'literal';
  INSERT INTO aq.sql_templates (name, body, holes, quoting)
  VALUES (p_name, parsed.expanded, parsed.holes, parsed.quoting)
  ON CONFLICT (name) DO UPDATE
  SET body = EXCLUDED.body, holes = EXCLUDED.holes, quoting = EXCLUDED.quoting;
  -- every key there and no null where one is not a literal: the one test on the way of a
  -- good call, a few key lookups (the body quoted as a literal: templates hold dollar
  -- quotes of their own; names qualified: the caller's search_path must not choose another
  -- format())
  EXECUTE aq.sql(E'CREATE OR REPLACE FUNCTION aq.{{fn:ident}}(p_args jsonb) RETURNS text\nLANGUAGE plpgsql STABLE AS {{code:literal}}',
    jsonb_build_object('fn', aq.template_function(p_name), 'code', aq.sql($f$
BEGIN
  IF p_args IS NULL OR NOT p_args OPERATOR(pg_catalog.?&) {{keys:literal}}::text[]{{nulls}} THEN
    PERFORM aq.render_check({{name:literal}}, p_args);
  END IF;
  RETURN pg_catalog.format({{fmt:literal}}{{vals}});
END$f$, jsonb_build_object('keys', ARRAY(SELECT DISTINCT h FROM unnest(parsed.holes) h)::text,
                           'name', p_name, 'fmt', parsed.fmt, 'vals', vals, 'nulls', nulls))));
END $def$;

-- The first placeholder of holes (quoted as quoting says) without its argument in p_args.
CREATE OR REPLACE FUNCTION aq.template_missing(p_holes text[], p_quoting text[], p_args jsonb) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT x.hole
  FROM unnest(p_holes, p_quoting) WITH ORDINALITY AS x(hole, quoting, i)
  WHERE NOT p_args ? x.hole OR (jsonb_typeof(p_args -> x.hole) = 'null' AND x.quoting <> 'literal')
  ORDER BY x.i LIMIT 1
$$;

-- Raises for the first placeholder of the template without its argument.
CREATE OR REPLACE FUNCTION aq.render_check(p_name text, p_args jsonb) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  missing text;
BEGIN
  IF p_args IS NULL THEN
    PERFORM aq.err(600, format('internal error: SQL template %s given no arguments', p_name), 'XX000');
  END IF;
  SELECT aq.template_missing(t.holes, t.quoting, p_args) INTO missing
  FROM aq.sql_templates t WHERE t.name = p_name;
  IF missing IS NOT NULL THEN
    PERFORM aq.err(600, format('internal error: SQL template %s needs {{%s}}', p_name, missing), 'XX000');
  END IF;
END $$;

-- A one-off statement in the same notation, filled at once: the inline entry point for
-- admin paths (parsed on each call; hot paths use a named template's compiled function).
-- Its errors name the template "(inline)".
CREATE OR REPLACE FUNCTION aq.sql(p_template text, p_args jsonb DEFAULT '{}') RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  parsed record;
  missing text;
BEGIN
  parsed := aq.template_parse('(inline)', p_template);
  IF p_args IS NULL THEN
    PERFORM aq.err(600, 'internal error: SQL template (inline) given no arguments', 'XX000');
  END IF;
  missing := aq.template_missing(parsed.holes, parsed.quoting, p_args);
  IF missing IS NOT NULL THEN
    PERFORM aq.err(600, format('internal error: SQL template (inline) needs {{%s}}', missing), 'XX000');
  END IF;
  RETURN format(parsed.fmt, VARIADIC ARRAY(
    SELECT CASE x.q WHEN 'ident' THEN quote_ident(p_args ->> x.h)
                    WHEN 'literal' THEN quote_nullable(p_args ->> x.h)
                    ELSE p_args ->> x.h END
    FROM unnest(parsed.holes, parsed.quoting) WITH ORDINALITY AS x(h, q, i) ORDER BY x.i));
END $$;

CREATE OR REPLACE FUNCTION aq.render(p_name text, p_args jsonb DEFAULT '{}') RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  out text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM aq.sql_templates t WHERE t.name = p_name) THEN
    PERFORM aq.err(600, format('internal error: no SQL template %s', p_name), 'XX000');
  END IF;
  EXECUTE format('SELECT aq.%I($1)', aq.template_function(p_name)) INTO out USING p_args;
  RETURN out;
END $$;
REVOKE EXECUTE ON FUNCTION aq.define_template(text, text) FROM PUBLIC;

-- After the templates were defined (the end of R__13_templates.sql): those this run did not
-- define again are gone, with their functions. Until then every template and function of
-- the previous run stays, so a dequeue running meanwhile finds what it calls. A file that
-- replaces functions before R__13_templates.sql defines the templates they call in its own
-- transaction (R__11_buffered.sql, R__12_*.sql): "this run" is every transaction since
-- this file's (pgaq.template_run, below; without it, as when called alone, the calling
-- transaction).
CREATE OR REPLACE FUNCTION aq.forget_undefined_templates() RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  gone text;
  run xid8 := nullif(current_setting('pgaq.template_run', true), '')::xid8;
BEGIN
  FOR gone IN DELETE FROM aq.sql_templates t
              WHERE CASE WHEN run IS NULL THEN t.xmin <> pg_current_xact_id()::xid
                         ELSE age(t.xmin) > age(xid(run)) END
              RETURNING t.name LOOP
    EXECUTE aq.sql('DROP FUNCTION IF EXISTS aq.{{fn:ident}}(jsonb)', jsonb_build_object('fn', aq.template_function(gone)));
  END LOOP;
END $$;
REVOKE EXECUTE ON FUNCTION aq.forget_undefined_templates() FROM PUBLIC;

-- This run of the repeatable files starts here (the first of them; the migrator replays
-- them all, in order, on one connection): aq.forget_undefined_templates keeps what any of
-- them defined since.
SELECT set_config('pgaq.template_run', pg_current_xact_id()::text, false);
