-- A grantee WITH GRANT OPTION may pass on what it holds, and nothing more: writing
-- aq.queue_privileges directly must not let it grant itself (or anyone) privileges beyond
-- its own grant. The schema's managers keep every right.
CREATE FUNCTION aq.privilege_change_ok(p_queue_id integer, p_grantee name, p_enqueue boolean,
                                       p_dequeue boolean, p_by name)
RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  -- runs in the writing statement's snapshot: `old` is the row before the change
  WITH old AS (
    SELECT p.enqueue, p.dequeue FROM aq.queue_privileges p
    WHERE p.queue_id = p_queue_id AND p.grantee = p_grantee
  ), mine AS (
    SELECT bool_or(g.enqueue) AS e, bool_or(g.dequeue) AS d FROM aq.queue_privileges g
    WHERE g.queue_id = p_queue_id AND g.grant_option AND pg_has_role(p_by, g.grantee, 'MEMBER')
  )
  SELECT m.e IS NOT NULL
     AND (NOT p_enqueue OR coalesce((SELECT o.enqueue FROM old o), false) OR m.e)
     AND (NOT p_dequeue OR coalesce((SELECT o.dequeue FROM old o), false) OR m.d)
  FROM mine m
$$;

DROP POLICY manage ON aq.queue_privileges;
CREATE POLICY manage ON aq.queue_privileges
    USING (aq.may_manage((SELECT q.schema_name FROM aq.queues q WHERE q.id = queue_id)));
CREATE POLICY pass_on_insert ON aq.queue_privileges FOR INSERT
    WITH CHECK (aq.privilege_change_ok(queue_id, grantee, enqueue, dequeue, current_user)
                AND grantor = current_user);
CREATE POLICY pass_on_update ON aq.queue_privileges FOR UPDATE
    USING (aq.has_grant_option(queue_id, current_user) OR pg_has_role(current_user, grantor, 'MEMBER'))
    WITH CHECK (aq.privilege_change_ok(queue_id, grantee, enqueue, dequeue, current_user));
CREATE POLICY revoke_own ON aq.queue_privileges FOR DELETE
    USING (pg_has_role(current_user, grantor, 'MEMBER'));
