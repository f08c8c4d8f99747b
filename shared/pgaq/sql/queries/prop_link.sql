-- A database link with its credentials (the propagator's login is an administrator). $1 name
SELECT name, url, username, password FROM aq.db_links WHERE name = $1
