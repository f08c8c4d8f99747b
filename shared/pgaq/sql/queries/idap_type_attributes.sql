-- The attribute tree of a composite type: nested composites and arrays, recursively.
-- $1 the type (regtype text). One row per attribute: the parent type, its position, name,
-- SQL type, the kind (scalar | composite | array), the element type of arrays, and typmod.
WITH RECURSIVE types(oid) AS (
    SELECT $1::text::regtype::oid
  UNION
    SELECT CASE WHEN et.oid IS NOT NULL THEN et.oid ELSE a.atttypid END
    FROM types t
    JOIN pg_type pt ON pt.oid = t.oid
    JOIN pg_attribute a ON a.attrelid = pt.typrelid AND a.attnum > 0 AND NOT a.attisdropped
    JOIN pg_type at ON at.oid = a.atttypid
    LEFT JOIN pg_type et ON et.oid = at.typelem AND at.typcategory = 'A'
    WHERE (CASE WHEN et.oid IS NOT NULL THEN et.typtype ELSE at.typtype END) = 'c'
)
SELECT $1::text::regtype::text AS top, pt.oid::regtype::text AS parent, pt.typname AS parent_name,
       a.attnum, a.attname,
       CASE WHEN at.typtype = 'c' THEN a.atttypid::regtype::text END AS attr_regtype,
       format_type(a.atttypid, a.atttypmod) AS sql_type,
       CASE WHEN at.typcategory = 'A' THEN 'array'
            WHEN at.typtype = 'c' THEN 'composite' ELSE 'scalar' END AS kind,
       CASE WHEN at.typcategory = 'A' THEN at.typelem::regtype::text END AS element_type,
       CASE WHEN at.typcategory = 'A' THEN (SELECT e.typtype = 'c' FROM pg_type e WHERE e.oid = at.typelem) END AS element_composite,
       CASE WHEN at.typcategory = 'A' THEN (SELECT e.typname FROM pg_type e WHERE e.oid = at.typelem)
            ELSE at.typname END AS base_name,
       a.atttypmod AS typmod
FROM types t
JOIN pg_type pt ON pt.oid = t.oid
JOIN pg_attribute a ON a.attrelid = pt.typrelid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type at ON at.oid = a.atttypid
ORDER BY pt.oid, a.attnum
