SELECT aq.advance_scan_floors($1::jsonb)::text
