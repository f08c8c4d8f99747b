-- Notifications, closing the gaps of the security review:
--  * aq.registrations is no longer writable by PUBLIC: rows are made by aq.register only
--    (it checks the allow list, the dequeue right and the per-owner limit), which runs as
--    its owner and learns its caller from a ticket the caller's own INSERT proves;
--  * plsql:// callbacks run on a login of their own that holds no privileges, inside a
--    SECURITY DEFINER function owned by the registration's owner (aq_callbacks.run_<oid>):
--    inside it the role cannot be changed, and outside it the session has nothing to regain.

REVOKE INSERT, UPDATE ON aq.registrations FROM PUBLIC;
REVOKE USAGE ON SEQUENCE aq.registrations_id_seq FROM PUBLIC;

-- Who is calling aq.register: its caller inserts a row here, and row security makes `who`
-- the caller's current_user at that moment (a SECURITY DEFINER function of someone else's
-- that calls aq.register shows up as that someone). aq.register_as takes the row out again
-- in the same transaction.
CREATE UNLOGGED TABLE aq.register_callers (
    ticket uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    who    name NOT NULL DEFAULT current_user,
    xid    xid8 NOT NULL DEFAULT pg_current_xact_id()
);
ALTER TABLE aq.register_callers ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine_in ON aq.register_callers FOR INSERT
    WITH CHECK (who = current_user AND xid = pg_current_xact_id());
CREATE POLICY mine_out ON aq.register_callers FOR SELECT USING (who = current_user);
REVOKE ALL ON aq.register_callers FROM PUBLIC;
GRANT SELECT, INSERT ON aq.register_callers TO PUBLIC;

-- plsql callbacks: the group of the callback logins (one login per database, made by the
-- notifier through aq.callback_login()), the schema of the per-owner trampolines, and the
-- login's password (readable by the notifier only).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'aq_callback_runner') THEN
    CREATE ROLE aq_callback_runner NOLOGIN;
  END IF;
END $$;

CREATE SCHEMA aq_callbacks;
REVOKE ALL ON SCHEMA aq_callbacks FROM PUBLIC;
GRANT USAGE ON SCHEMA aq_callbacks TO aq_callback_runner;

CREATE TABLE aq.callback_login (
    id       boolean PRIMARY KEY DEFAULT true CHECK (id),
    rolname  name NOT NULL,
    password text NOT NULL
);
REVOKE ALL ON aq.callback_login FROM PUBLIC;
