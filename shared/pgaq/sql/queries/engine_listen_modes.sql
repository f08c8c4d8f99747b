-- Session.listen and listen_delivery: the target found (two per agent: persistent, buffered)
SELECT aq.listen_first($1::sys."aq$_agent"[], $2::text)
