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
LANGUAGE plpgsql AS $def$
DECLARE
  holes text[] := '{}';
  quoting text[] := '{}';
  hole text[];
  vals text := '';
  v text;
  part text[];
  expanded text := p_body;  -- the body with the parts it includes
BEGIN
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
    v := format('p_args ->> %L', hole[1]);
    vals := vals || E',\n    ' || CASE coalesce(hole[2], 'sql')
      WHEN 'sql' THEN v
      WHEN 'ident' THEN format('quote_ident(%s)', v)
      ELSE format('quote_nullable(%s)', v) END;
  END LOOP;
  INSERT INTO aq.sql_templates (name, body, holes, quoting)
  VALUES (p_name, expanded, holes, quoting)
  ON CONFLICT (name) DO UPDATE
  SET body = EXCLUDED.body, holes = EXCLUDED.holes, quoting = EXCLUDED.quoting;
  -- every key there and no null among the values: the one test on the way of a good call
  -- (the body quoted as a literal: templates hold dollar quotes of their own)
  EXECUTE format(E'CREATE OR REPLACE FUNCTION aq.%I(p_args jsonb) RETURNS text\nLANGUAGE plpgsql STABLE AS %L',
    aq.template_function(p_name), format($f$
BEGIN
  IF NOT p_args ?& %L::text[] OR p_args @? '$.* ? (@ == null)' THEN
    PERFORM aq.render_check(%L, p_args);
  END IF;
  RETURN format(%L%s);
END$f$,
      ARRAY(SELECT DISTINCT h FROM unnest(holes) h), p_name,
      regexp_replace(replace(expanded, '%', '%%'), '\{\{[a-z_]+(?::[a-z]+)?\}\}', '%s', 'g'), vals));
END $def$;

-- Raises for the first placeholder of the template without its argument.
CREATE OR REPLACE FUNCTION aq.render_check(p_name text, p_args jsonb) RETURNS void
LANGUAGE plpgsql STABLE AS $$
DECLARE
  missing text;
BEGIN
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
LANGUAGE plpgsql STABLE AS $$
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
