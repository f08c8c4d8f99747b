-- pgaq purge: dbms_aqadm.purge_queue_table($1, $2 condition) with block $3, counting what it
-- removed; $4 dry run (R__92).
SELECT * FROM aq.purge($1::text, $2::text, $3::boolean, $4::boolean)
