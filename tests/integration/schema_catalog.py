"""A database's schema read from the catalogs, as {object: description}, and the readable
difference of two of them (tests/integration/test_migration_schema.py).

Keyed by the object's identity (`function aq.wake(integer)`, `column aq.queues.name`), so two
databases compare object by object whatever order or OIDs they were built in, and a
difference names the object and shows the lines that differ. Descriptions use no OIDs: roles
by name, types and functions by their qualified names (the connection's search_path is
pg_catalog alone), ACLs sorted. Every schema but PostgreSQL's own is read: in a database
only the migrations built, that is what pgaq owns.
"""

from __future__ import annotations

import difflib
import re

import asyncpg

# every schema but the system's
_SCHEMAS = """(SELECT n.oid FROM pg_namespace n WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
                AND n.nspname !~ '^pg_(toast|temp_|toast_temp_)')"""
# a relation OID the templates write into generated code (R__13_templates.sql, payload_relid)
_OID = re.compile(r"(?<=\battrelid = )[0-9]+\b")
_ACL = "coalesce((SELECT string_agg(a::text, ' ' ORDER BY a::text) FROM unnest({0}) a), 'default')"

# (what, query returning key, description)
_QUERIES: list[tuple[str, str]] = [
    ("schemas", f"""
SELECT 'schema ' || quote_ident(n.nspname),
       concat_ws(E'\\n', 'owner ' || pg_get_userbyid(n.nspowner), 'acl ' || {_ACL.format('n.nspacl')})
FROM pg_namespace n WHERE n.oid IN {_SCHEMAS}"""),
    # functions and procedures: signature, result, attributes, body
    ("functions", f"""
SELECT CASE p.prokind WHEN 'p' THEN 'procedure ' WHEN 'a' THEN 'aggregate ' WHEN 'w' THEN 'window '
                      ELSE 'function ' END || p.oid::regprocedure::text,
       concat_ws(E'\\n',
         'arguments ' || pg_get_function_arguments(p.oid),
         'result ' || coalesce(pg_get_function_result(p.oid), '-'),
         'language ' || l.lanname,
         'volatility ' || p.provolatile::text || ' strict ' || p.proisstrict || ' parallel ' || p.proparallel::text
           || ' leakproof ' || p.proleakproof || ' cost ' || p.procost || ' rows ' || p.prorows,
         'security definer ' || p.prosecdef,
         'config ' || coalesce(array_to_string(p.proconfig, ', '), '-'),
         'owner ' || pg_get_userbyid(p.proowner),
         'acl ' || {_ACL.format('p.proacl')},
         'body:', p.prosrc)
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
WHERE p.pronamespace IN {_SCHEMAS}"""),
    # tables, views, sequences, composite types, indexes
    ("relations", f"""
SELECT CASE c.relkind WHEN 'r' THEN 'table ' WHEN 'p' THEN 'partitioned table ' WHEN 'v' THEN 'view '
         WHEN 'm' THEN 'materialized view ' WHEN 'S' THEN 'sequence ' WHEN 'c' THEN 'composite type '
         WHEN 'i' THEN 'index ' WHEN 'I' THEN 'partitioned index ' WHEN 'f' THEN 'foreign table '
         ELSE c.relkind::text || ' ' END || c.oid::regclass::text,
       concat_ws(E'\\n',
         'owner ' || pg_get_userbyid(c.relowner),
         'acl ' || {_ACL.format('c.relacl')},
         'persistence ' || c.relpersistence::text || ' row security ' || c.relrowsecurity
           || ' forced ' || c.relforcerowsecurity,
         'options ' || coalesce(array_to_string(c.reloptions, ', '), '-'),
         'index ' || pg_get_indexdef(c.oid) || CASE WHEN i.indisclustered THEN ' clustered' ELSE '' END,
         'sequence ' || format_type(s.seqtypid, NULL) || ' start ' || s.seqstart || ' increment '
           || s.seqincrement || ' min ' || s.seqmin || ' max ' || s.seqmax || ' cache ' || s.seqcache
           || ' cycle ' || s.seqcycle,
         CASE WHEN c.relkind IN ('v', 'm') THEN E'definition:\\n' || pg_get_viewdef(c.oid) END)
FROM pg_class c
LEFT JOIN pg_index i ON i.indexrelid = c.oid
LEFT JOIN pg_sequence s ON s.seqrelid = c.oid
WHERE c.relnamespace IN {_SCHEMAS} AND c.relkind <> 't'"""),
    # columns of tables, views and composite types, in their order
    ("columns", f"""
SELECT 'column ' || c.oid::regclass::text || '.' || quote_ident(a.attname),
       concat_ws(E'\\n',
         'position ' || row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum),
         'type ' || format_type(a.atttypid, a.atttypmod)
           || CASE WHEN a.attcollation <> t.typcollation THEN ' collate ' || co.collname ELSE '' END,
         'not null ' || a.attnotnull,
         'default ' || pg_get_expr(d.adbin, d.adrelid),
         'identity ' || nullif(a.attidentity::text, ''),
         'generated ' || nullif(a.attgenerated::text, ''),
         'acl ' || {_ACL.format('a.attacl')})
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_collation co ON co.oid = a.attcollation
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE c.relnamespace IN {_SCHEMAS} AND c.relkind IN ('r', 'p', 'v', 'm', 'c', 'f')
  AND a.attnum > 0 AND NOT a.attisdropped"""),
    # constraints of tables and domains
    ("constraints", f"""
SELECT 'constraint ' || coalesce(nullif(k.conrelid, 0)::regclass::text, format_type(k.contypid, NULL))
         || '.' || quote_ident(k.conname),
       k.contype::text || ' ' || pg_get_constraintdef(k.oid) || ' validated ' || k.convalidated
FROM pg_constraint k WHERE k.connamespace IN {_SCHEMAS}"""),
    ("triggers", f"""
SELECT 'trigger ' || g.tgrelid::regclass::text || '.' || quote_ident(g.tgname),
       pg_get_triggerdef(g.oid) || ' enabled ' || g.tgenabled::text
FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
WHERE c.relnamespace IN {_SCHEMAS} AND NOT g.tgisinternal"""),
    ("policies", f"""
SELECT 'policy ' || y.polrelid::regclass::text || '.' || quote_ident(y.polname),
       concat_ws(E'\\n', 'command ' || y.polcmd::text || ' permissive ' || y.polpermissive,
         'roles ' || (SELECT string_agg(CASE r WHEN 0 THEN 'public' ELSE pg_get_userbyid(r)::text END,
                                        ' ' ORDER BY 1) FROM unnest(y.polroles) r),
         'using ' || pg_get_expr(y.polqual, y.polrelid),
         'with check ' || pg_get_expr(y.polwithcheck, y.polrelid))
FROM pg_policy y JOIN pg_class c ON c.oid = y.polrelid WHERE c.relnamespace IN {_SCHEMAS}"""),
    ("rules", """
SELECT 'rule ' || quote_ident(r.schemaname) || '.' || quote_ident(r.tablename) || '.' || quote_ident(r.rulename),
       r.definition
FROM pg_rules r WHERE r.schemaname NOT IN ('pg_catalog', 'information_schema')"""),
    # types other than relations' row types and arrays: enums, domains, ranges, base types
    ("types", f"""
SELECT 'type ' || format_type(t.oid, NULL),
       concat_ws(E'\\n',
         'kind ' || t.typtype::text || ' owner ' || pg_get_userbyid(t.typowner),
         'acl ' || {_ACL.format('t.typacl')},
         'base ' || format_type(t.typbasetype, t.typtypmod) || ' not null ' || t.typnotnull,
         'default ' || t.typdefault,
         'labels ' || (SELECT string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder)
                       FROM pg_enum e WHERE e.enumtypid = t.oid))
FROM pg_type t LEFT JOIN pg_class c ON c.oid = t.typrelid
WHERE t.typnamespace IN {_SCHEMAS} AND coalesce(c.relkind, 'c') = 'c'
  AND NOT EXISTS (SELECT 1 FROM pg_type e WHERE e.typarray = t.oid)"""),
    ("default privileges", """
SELECT 'default privileges of ' || pg_get_userbyid(d.defaclrole) || ' in '
         || coalesce(n.nspname, '*') || ' on ' || d.defaclobjtype::text,
       coalesce((SELECT string_agg(a::text, ' ' ORDER BY a::text) FROM unnest(d.defaclacl) a), '')
FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace"""),
    ("extensions", """
SELECT 'extension ' || x.extname, x.extversion || ' in ' || x.extnamespace::regnamespace::text
FROM pg_extension x"""),
    ("comments", f"""
SELECT 'comment on ' || pg_describe_object(d.classoid, d.objoid, d.objsubid), d.description
FROM pg_description d, pg_identify_object(d.classoid, d.objoid, d.objsubid) o
WHERE o.schema IN (SELECT nspname FROM pg_namespace WHERE oid IN {_SCHEMAS})"""),
    # any object in the schemas, of any kind (operators, collations, statistics ...): the
    # kinds above describe most; this lists the rest, so none goes unseen
    ("objects", f"""
SELECT DISTINCT 'object ' || o.type || ' ' || o.identity, ''
FROM pg_depend d, pg_identify_object(d.classid, d.objid, d.objsubid) o
WHERE d.refclassid = 'pg_namespace'::regclass AND d.refobjid IN {_SCHEMAS}
  AND o.type NOT IN ('function', 'procedure', 'aggregate', 'window function', 'table', 'view',
                     'materialized view', 'sequence', 'index', 'composite type', 'foreign table',
                     'toast table', 'type', 'table constraint', 'domain constraint')"""),
    # the templates the engine generates code from are code kept as rows (R__13_templates)
    ("templates", """
SELECT 'template ' || t.name, concat_ws(E'\\n', 'holes ' || array_to_string(t.holes, ', '),
                                         'quoting ' || array_to_string(t.quoting, ', '), t.body)
FROM aq.sql_templates t"""),
]


async def read_schema(conn: asyncpg.Connection) -> dict[str, str]:
    """The schema of the database `conn` is connected to.

    A relation's OID written into generated code (the payload type's, whose attributes a
    queue table's generated enqueue checks messages against) reads as `<oid of name>`: OIDs
    differ between any two databases."""
    out: dict[str, str] = {}
    async with conn.transaction():
        await conn.execute("SET LOCAL search_path = pg_catalog")
        oids = {str(r["oid"]): f"<oid of {r['name']}>" for r in await conn.fetch(
            f"SELECT c.oid, c.oid::regclass::text AS name FROM pg_class c WHERE c.relnamespace IN {_SCHEMAS}")}
        for what, sql in _QUERIES:
            for key, value in await conn.fetch(sql):
                assert key not in out, f"{what}: {key} twice"
                out[key] = _OID.sub(lambda m: oids.get(m.group(0), m.group(0)), value)
    return out


def difference(fresh: dict[str, str], upgraded: dict[str, str]) -> list[str]:
    """What differs, one paragraph per object: only in one, or a diff of its description."""
    out: list[str] = []
    for key in sorted(fresh.keys() | upgraded.keys()):
        if key not in upgraded:
            out.append(f"only in the fresh install: {key}")
        elif key not in fresh:
            out.append(f"only in the upgraded database: {key}")
        elif fresh[key] != upgraded[key]:
            diff = difflib.unified_diff(fresh[key].splitlines(), upgraded[key].splitlines(),
                                        "fresh install", "upgraded", n=1, lineterm="")
            out.append(f"differs: {key}\n" + "\n".join("    " + line for line in diff))
    return out
