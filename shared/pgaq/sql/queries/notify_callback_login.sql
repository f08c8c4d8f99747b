-- The callback login of this database (made on first use). No parameters.
SELECT rolname, password FROM aq.callback_login()
