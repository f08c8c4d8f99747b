-- The named templates of the SQL the engine generates (per-queue-table functions and the
-- statements of the dynamic paths), filled by aq.render. Rows come from R__13_templates.sql,
-- replaced whenever the repeatable files run; nobody but the schema's owner writes them
-- (a template becomes code that runs as a queue table's owner). aq.define_template also
-- compiles each into a function (aq.render_<name>), so rendering parses nothing.
CREATE TABLE aq.sql_templates (
    name text PRIMARY KEY,
    body text NOT NULL,
    holes text[] NOT NULL,    -- the placeholders' names, in order
    quoting text[] NOT NULL   -- and how each is quoted: sql, ident or literal
);
REVOKE ALL ON aq.sql_templates FROM PUBLIC;
GRANT SELECT ON aq.sql_templates TO PUBLIC;
