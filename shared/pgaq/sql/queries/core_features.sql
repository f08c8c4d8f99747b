-- What /health reports beside the status: dblink gives SQL callers autonomous work
-- (a rolled-back dbms_aq.dequeue counts its attempt; IMMEDIATE visibility from SQL)
SELECT json_build_object('dblink', aq.dblink_schema() IS NOT NULL)::text
