-- The attribute tree of a composite payload type, for mapping IDAP XML onto it.
-- $1: the type (regtype text). Walks nested composites and arrays of composites.
-- One row per attribute of every composite reached: its parent type, position, name,
-- SQL type (format_type, carrying varchar length / numeric precision and scale), kind
-- (scalar | composite | array), the composite it refers to (itself or its array element)
-- and the scalar base type name (domains resolved one level, arrays to their element).
WITH RECURSIVE attrs AS (
    SELECT pt.oid AS parent, a.attnum, a.attname,
           -- a domain is read as its base type, with the domain's own typmod
           CASE WHEN at.typtype = 'd' THEN at.typbasetype ELSE a.atttypid END AS typ,
           CASE WHEN at.typtype = 'd' THEN at.typtypmod ELSE a.atttypmod END AS typmod
    FROM pg_type pt
    JOIN pg_attribute a ON a.attrelid = pt.typrelid AND a.attnum > 0 AND NOT a.attisdropped
    JOIN pg_type at ON at.oid = a.atttypid
    WHERE pt.oid = $1::text::regtype::oid
  UNION
    SELECT pt.oid, a.attnum, a.attname,
           CASE WHEN at.typtype = 'd' THEN at.typbasetype ELSE a.atttypid END,
           CASE WHEN at.typtype = 'd' THEN at.typtypmod ELSE a.atttypmod END
    FROM attrs p
    JOIN pg_type ptt ON ptt.oid = p.typ
    LEFT JOIN pg_type pe ON pe.oid = ptt.typelem AND ptt.typcategory = 'A'
    JOIN pg_type pt ON pt.oid = COALESCE(pe.oid, ptt.oid) AND pt.typtype = 'c'
    JOIN pg_attribute a ON a.attrelid = pt.typrelid AND a.attnum > 0 AND NOT a.attisdropped
    JOIN pg_type at ON at.oid = a.atttypid
)
SELECT $1::text::regtype::oid AS top,
       p.parent, pt.typname AS parent_name, p.attnum, p.attname,
       format_type(p.typ, p.typmod) AS sql_type,
       CASE WHEN t.typcategory = 'A' THEN 'array'
            WHEN t.typtype = 'c' THEN 'composite' ELSE 'scalar' END AS kind,
       CASE WHEN t.typtype = 'c' THEN t.oid
            WHEN t.typcategory = 'A' AND e.typtype = 'c' THEN e.oid END AS ref,
       CASE WHEN t.typtype = 'c' THEN t.typname
            WHEN t.typcategory = 'A' AND e.typtype = 'c' THEN e.typname END AS ref_name,
       CASE WHEN t.typtype = 'c' OR (t.typcategory = 'A' AND e.typtype = 'c') THEN ''
            WHEN t.typcategory = 'A' THEN COALESCE(eb.typname, e.typname)
            ELSE t.typname END AS scalar
FROM attrs p
JOIN pg_type pt ON pt.oid = p.parent
JOIN pg_type t ON t.oid = p.typ
LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
LEFT JOIN pg_type eb ON eb.oid = e.typbasetype AND e.typtype = 'd'
ORDER BY p.parent, p.attnum
