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

CREATE OR REPLACE FUNCTION aq.template_function(p_name text) RETURNS name
LANGUAGE sql IMMUTABLE AS $$
  SELECT ('render_' || regexp_replace(p_name, '[^a-z0-9]+', '_', 'g'))::name
$$;

CREATE OR REPLACE FUNCTION aq.define_template(p_name text, p_body text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, aq, pg_temp AS $def$
DECLARE
  holes text[] := '{}';
  quoting text[] := '{}';
  hole text[];
  vals text := '';
  v text;
  part text[];
  expanded text := p_body;  -- the body with the parts it includes
BEGIN
  -- one template, one function: names that differ only in signs would share it
  IF aq.template_function(p_name) = 'render_check' OR EXISTS (
       SELECT 1 FROM aq.sql_templates t
       WHERE t.name <> p_name AND aq.template_function(t.name) = aq.template_function(p_name)) THEN
    PERFORM aq.err(600, format('internal error: SQL template %s: its function name %s is taken',
                               p_name, aq.template_function(p_name)), 'XX000');
  END IF;
  FOR part IN SELECT regexp_matches(p_body, '\{\{> ([a-z_.]+)\}\}', 'g') LOOP
    SELECT replace(expanded, '{{> ' || part[1] || '}}', t.body) INTO expanded
    FROM aq.sql_templates t WHERE t.name = part[1];
    IF NOT FOUND THEN
      PERFORM aq.err(600, format('internal error: SQL template %s includes %s, not defined before it',
                                 p_name, part[1]), 'XX000');
    END IF;
  END LOOP;
  FOR hole IN SELECT regexp_matches(expanded, '\{\{([a-z_]+)(?::([a-z]+))?\}\}', 'g') LOOP
    IF hole[2] NOT IN ('ident', 'literal') THEN
      PERFORM aq.err(600, format('internal error: SQL template %s: unknown quoting {{%s:%s}}',
                                 p_name, hole[1], hole[2]), 'XX000');
    END IF;
    holes := holes || hole[1];
    quoting := quoting || coalesce(hole[2], 'sql');
    v := format('p_args OPERATOR(pg_catalog.->>) %L', hole[1]);
    vals := vals || E',\n    ' || CASE coalesce(hole[2], 'sql')
      WHEN 'sql' THEN v
      WHEN 'ident' THEN format('pg_catalog.quote_ident(%s)', v)
      ELSE format('pg_catalog.quote_nullable(%s)', v) END;
  END LOOP;
  INSERT INTO aq.sql_templates (name, body, holes, quoting)
  VALUES (p_name, expanded, holes, quoting)
  ON CONFLICT (name) DO UPDATE
  SET body = EXCLUDED.body, holes = EXCLUDED.holes, quoting = EXCLUDED.quoting;
  -- every key there and no null among the values: the one test on the way of a good call
  -- (the body quoted as a literal: templates hold dollar quotes of their own; names
  -- qualified: the caller's search_path must not choose another format())
  EXECUTE format(E'CREATE OR REPLACE FUNCTION aq.%I(p_args jsonb) RETURNS text\nLANGUAGE plpgsql STABLE AS %L',
    aq.template_function(p_name), format($f$
BEGIN
  IF p_args IS NULL OR NOT p_args OPERATOR(pg_catalog.?&) %L::text[]
     OR p_args OPERATOR(pg_catalog.@?) '$.* ? (@ == null)' THEN
    PERFORM aq.render_check(%L, p_args);
  END IF;
  RETURN pg_catalog.format(%L%s);
END$f$,
      ARRAY(SELECT DISTINCT h FROM unnest(holes) h), p_name,
      regexp_replace(replace(expanded, '%', '%%'), '\{\{[a-z_]+(?::[a-z]+)?\}\}', '%s', 'g'), vals));
END $def$;

-- Raises for the first placeholder of the template without its argument.
CREATE OR REPLACE FUNCTION aq.render_check(p_name text, p_args jsonb) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  missing text;
BEGIN
  IF p_args IS NULL THEN
    PERFORM aq.err(600, format('internal error: SQL template %s given no arguments', p_name), 'XX000');
  END IF;
  SELECT x.hole INTO missing
  FROM aq.sql_templates t, unnest(t.holes, t.quoting) WITH ORDINALITY AS x(hole, quoting, i)
  WHERE t.name = p_name
    AND (NOT p_args ? x.hole OR (jsonb_typeof(p_args -> x.hole) = 'null' AND x.quoting <> 'literal'))
  ORDER BY x.i LIMIT 1;
  IF missing IS NOT NULL THEN
    PERFORM aq.err(600, format('internal error: SQL template %s needs {{%s}}', p_name, missing), 'XX000');
  END IF;
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
-- the previous run stays, so a dequeue running meanwhile finds what it calls.
CREATE OR REPLACE FUNCTION aq.forget_undefined_templates() RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, aq, pg_temp AS $$
DECLARE
  gone text;
BEGIN
  FOR gone IN DELETE FROM aq.sql_templates t WHERE t.xmin <> pg_current_xact_id()::xid RETURNING t.name LOOP
    EXECUTE format('DROP FUNCTION IF EXISTS aq.%I(jsonb)', aq.template_function(gone));
  END LOOP;
END $$;
REVOKE EXECUTE ON FUNCTION aq.forget_undefined_templates() FROM PUBLIC;
