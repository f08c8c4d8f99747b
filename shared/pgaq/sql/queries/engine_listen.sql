SELECT aq.listen_first($1::sys."aq$_agent"[])
