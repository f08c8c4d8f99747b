-- Notifications: registrations (AQXmlRegister, dbms_aq.register), the outbox rows the
-- enqueue's transaction writes (aq.notify_enqueued), registration timeouts, DBMS_AQELM's
-- mail settings and the operator's list of hosts http(s) notifications may reach.
-- The notifier service (pgaq.notify) delivers the outbox.

-- ---------------------------------------------------------------------------------------
-- Oracle's constructors and constants

CREATE OR REPLACE FUNCTION sys.aq$_reg_info(name text, namespace integer, callback text,
                                            context bytea DEFAULT NULL, qosflags integer DEFAULT 0,
                                            timeout integer DEFAULT 0)
RETURNS sys.aq$_reg_info LANGUAGE sql IMMUTABLE AS $$
  SELECT ROW(name, namespace, callback, context, qosflags, timeout)::sys.aq$_reg_info
$$;

CREATE OR REPLACE FUNCTION sys.aq$_reg_info_list(VARIADIC regs sys.aq$_reg_info[])
RETURNS sys.aq$_reg_info[] LANGUAGE sql IMMUTABLE AS $$ SELECT regs $$;

CREATE OR REPLACE FUNCTION dbms_aq.namespace_aq() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 0';
CREATE OR REPLACE FUNCTION dbms_aq.namespace_anonymous() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 1';
CREATE OR REPLACE FUNCTION dbms_aq.ntfn_qos_reliable() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 1';
CREATE OR REPLACE FUNCTION dbms_aq.ntfn_qos_payload() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 2';
CREATE OR REPLACE FUNCTION dbms_aq.ntfn_qos_purge_ntfn() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 4';

-- ---------------------------------------------------------------------------------------
-- notify_url: http(s)://host[:port]/path, mailto:[//]address, plsql://schema.procedure
-- (Oracle's `?PR=0|1` suffix picks RAW or XML presentation for plsql).

-- A URL fit to show: credentials in the authority (user:password@) and the whole query
-- (libpq and gateways take password=... there) replaced by ***. For error messages and
-- views that non-administrators read.
CREATE OR REPLACE FUNCTION aq.redact_url(p_url text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(regexp_replace(p_url, '^([A-Za-z][A-Za-z0-9+.-]*:(//)?)[^/?#]*@', '\1***@'),
                        '[?#].*$', '?***')
$$;

CREATE OR REPLACE FUNCTION aq.parse_notify_url(p_url text, OUT scheme text, OUT host text,
                                               OUT port integer, OUT target text,
                                               OUT presentation text, OUT dest_key text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  url text := btrim(coalesce(p_url, ''));
  m text[];
BEGIN
  IF length(url) > 2000 THEN
    PERFORM aq.err(24940, 'invalid notify_url: longer than 2000 characters', '22023');
  END IF;
  m := regexp_match(url, '^(https?)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:([0-9]{1,5}))?([/?#][^\s]*)?$');
  IF m IS NOT NULL THEN
    scheme := lower(m[1]);
    host := lower(btrim(m[2], '[]'));
    -- IP literals: valid ones only, and IPv4 only as dotted quads (resolvers read
    -- 2130706433, 0x7f.1 or 127.1 as addresses, past a list that speaks of names)
    IF host LIKE '%:%' THEN
      BEGIN
        PERFORM host::inet;
      EXCEPTION WHEN invalid_text_representation THEN
        PERFORM aq.err(24940, format('invalid notify_url %s: bad IPv6 address', quote_literal(left(aq.redact_url(url), 100))), '22023');
      END;
    ELSIF substring(host FROM '[^.]*$') ~ '^([0-9]+|0x[0-9a-f]*)$'
          AND host !~ '^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$' THEN
      PERFORM aq.err(24940, format('invalid notify_url %s: write IPv4 addresses as dotted quads (a.b.c.d)',
                                   quote_literal(left(aq.redact_url(url), 100))), '22023');
    END IF;
    port := coalesce(m[5]::integer, CASE scheme WHEN 'https' THEN 443 ELSE 80 END);
    IF port < 1 OR port > 65535 THEN
      PERFORM aq.err(24940, format('invalid notify_url %s: port out of range', quote_literal(left(aq.redact_url(url), 100))), '22023');
    END IF;
    target := url;
    presentation := 'XML';
    dest_key := format('%s://%s:%s', scheme, host, port);
    RETURN;
  END IF;
  m := regexp_match(url, '^mailto:(//)?([A-Za-z0-9.!#$%&''*+/=?^_`{|}~-]+@[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)$', 'i');
  IF m IS NOT NULL THEN
    scheme := 'mailto';
    target := m[2];
    presentation := 'XML';
    dest_key := 'mailto';
    RETURN;
  END IF;
  m := regexp_match(url, '^plsql://([A-Za-z_][A-Za-z0-9_$#]*)\.([A-Za-z_][A-Za-z0-9_$#]*)(\?PR=([01]))?$', 'i');
  IF m IS NOT NULL THEN
    scheme := 'plsql';
    -- unquoted names, as PostgreSQL folds them
    target := lower(m[1]) || '.' || lower(m[2]);
    presentation := CASE m[4] WHEN '0' THEN 'RAW' ELSE 'XML' END;
    dest_key := 'plsql://' || target;
    RETURN;
  END IF;
  PERFORM aq.err(24940, format('invalid notify_url %s: use http://host[:port]/path, https://..., '
                               'mailto:address or plsql://schema.procedure', quote_literal(left(aq.redact_url(url), 100))), '22023');
END $$;

CREATE OR REPLACE FUNCTION aq.notify_dest_key(p_url text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT (aq.parse_notify_url(p_url)).dest_key $$;

-- Whether http(s) notifications may go to `host` (a name or an IP address): some allow
-- entry matches and no deny entry does. Patterns: `name`, `*.domain`, `ip`, `cidr`.
CREATE OR REPLACE FUNCTION aq.notification_host_allowed(p_host text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  WITH lit AS (
    SELECT lower(p_host) AS name,
           CASE WHEN p_host ~ '^[0-9]{1,3}(\.[0-9]{1,3}){3}$' OR p_host ~ '^[0-9A-Fa-f:.]+$' AND p_host LIKE '%:%'
                THEN p_host::inet END AS ip
  ), h AS (  -- an IPv4-mapped IPv6 address is judged as the IPv4 address it is
    SELECT name, CASE WHEN family(ip) = 6 AND ip <<= '::ffff:0:0/96'::inet
                      THEN regexp_replace(host(ip), '^::ffff:', '')::inet ELSE ip END AS ip
    FROM lit
  ), matches AS (
    SELECT e.allow FROM aq.notification_hosts e, h
    WHERE e.pattern = h.name
       OR (e.pattern LIKE '*.%' AND h.name LIKE '%' || substr(e.pattern, 2))
       OR (h.ip IS NOT NULL AND e.pattern ~ '^[0-9a-f:.]+(/[0-9]{1,3})?$' AND h.ip <<= e.pattern::cidr)
  )
  SELECT coalesce(bool_or(allow), false) AND NOT coalesce(bool_or(NOT allow), false) FROM matches
$$;

CREATE OR REPLACE PROCEDURE aq.allow_notification_host(host text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('allow_notification_host');
  PERFORM aq.check_host_pattern(host);
  INSERT INTO aq.notification_hosts (pattern, allow) VALUES (lower(btrim(host)), true)
  ON CONFLICT (pattern) DO UPDATE SET allow = true;
END $$;

CREATE OR REPLACE PROCEDURE aq.deny_notification_host(host text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('deny_notification_host');
  PERFORM aq.check_host_pattern(host);
  INSERT INTO aq.notification_hosts (pattern, allow) VALUES (lower(btrim(host)), false)
  ON CONFLICT (pattern) DO UPDATE SET allow = false;
END $$;

CREATE OR REPLACE PROCEDURE aq.remove_notification_host(host text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('remove_notification_host');
  DELETE FROM aq.notification_hosts WHERE pattern = lower(btrim(host));
END $$;

CREATE OR REPLACE FUNCTION aq.check_host_pattern(p text) RETURNS void
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := lower(btrim(coalesce(p, '')));
BEGIN
  IF s ~ '^[0-9a-f:.]+(/[0-9]{1,3})?$' AND (s ~ '^[0-9./]+$' OR s LIKE '%:%') THEN
    BEGIN
      PERFORM s::cidr;
      RETURN;
    EXCEPTION WHEN invalid_text_representation THEN
      NULL;
    END;
  ELSIF s ~ '^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$' AND length(s) <= 253 THEN
    RETURN;
  END IF;
  PERFORM aq.err(24940, format('invalid host pattern %s: use a host name, *.domain, an IP address or a CIDR block',
                               quote_literal(left(p, 100))), '22023');
END $$;

-- ---------------------------------------------------------------------------------------
-- Registrations

-- keeps aq.queues.notify true exactly while the queue has registrations; the queue row is
-- locked first so concurrent registrations and removals cannot leave it wrong
CREATE OR REPLACE FUNCTION aq.registrations_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  qid integer;
BEGIN
  FOREACH qid IN ARRAY ARRAY[CASE WHEN TG_OP <> 'INSERT' THEN OLD.queue_id END,
                             CASE WHEN TG_OP <> 'DELETE' THEN NEW.queue_id END] LOOP
    CONTINUE WHEN qid IS NULL;
    PERFORM 1 FROM aq.queues WHERE id = qid FOR NO KEY UPDATE;
    UPDATE aq.queues q SET notify = EXISTS (SELECT 1 FROM aq.registrations r WHERE r.queue_id = qid)
    WHERE q.id = qid;
  END LOOP;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS registrations_changed ON aq.registrations;
CREATE TRIGGER registrations_changed AFTER INSERT OR DELETE OR UPDATE OF queue_id ON aq.registrations
FOR EACH ROW EXECUTE FUNCTION aq.registrations_changed();

-- upgrade (stays here: the defaults would make a call ambiguous): removes the 6-argument form; no release
DROP FUNCTION IF EXISTS aq.register(text, text, text, text, text, text);

-- One registration (AQXmlRegister, dbms_aq.register), made as its caller: the public entry
-- point proves who calls (a ticket row whose `who` row security fills with current_user)
-- and hands over to aq.register_as, which alone writes aq.registrations.
-- qosflags: 2 payload delivery (RAW queues), 4 purge on the first notification.
CREATE OR REPLACE FUNCTION aq.register(p_queue text, p_consumer text, p_url text,
                                       p_agent text DEFAULT NULL, p_lookup text DEFAULT 'DATABASE',
                                       p_presentation text DEFAULT NULL, p_timeout integer DEFAULT 0,
                                       p_qosflags integer DEFAULT 0, p_context bytea DEFAULT NULL,
                                       p_namespace integer DEFAULT 0)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  t uuid;
BEGIN
  INSERT INTO aq.register_callers DEFAULT VALUES RETURNING ticket INTO t;
  RETURN aq.register_as(t, p_queue, p_consumer, p_url, p_agent, p_lookup, p_presentation,
                        p_timeout, p_qosflags, p_context, p_namespace);
END $$;

-- The registration proper, as the ticket's caller (`who`): who must be allowed to dequeue
-- from the queue; consumer names only on multi-consumer queues; http(s) hosts only where
-- the operator allowed them; at most max_registrations per agent or role, counted under a
-- lock per agent or role so concurrent calls cannot pass the limit together. An agent name
-- is taken only from the IDAP gateway (a session logged in as an AQ administrator or a
-- superuser, the agent mapped to the database user it runs as): from plain SQL the
-- registration is the role's own.
CREATE OR REPLACE FUNCTION aq.register_as(p_ticket uuid, p_queue text, p_consumer text, p_url text,
                                          p_agent text, p_lookup text, p_presentation text,
                                          p_timeout integer, p_qosflags integer, p_context bytea,
                                          p_namespace integer)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  who name;
  q aq.queue_info;
  consumer text := aq.agent_name(p_consumer);
  u record := aq.parse_notify_url(p_url);
  url text := btrim(p_url);
  lim integer := (SELECT max_registrations FROM aq.notification_settings);
  flags integer := coalesce(p_qosflags, 0);
  pres text := upper(coalesce(p_presentation, u.presentation));
  admin boolean;
  key text;
  old record;
  id bigint;
BEGIN
  DELETE FROM aq.register_callers c WHERE c.ticket = p_ticket AND c.xid = pg_current_xact_id()
  RETURNING c.who INTO who;
  IF who IS NULL THEN
    PERFORM aq.err(1031, 'insufficient privileges: call aq.register or dbms_aq.register', '42501');
  END IF;
  -- tickets committed without a registration (inserted by hand) go
  DELETE FROM aq.register_callers c WHERE pg_xact_status(c.xid) IS DISTINCT FROM 'in progress';
  admin := pg_has_role(who, 'aq_administrator_role', 'MEMBER')
           OR coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = who), false);
  IF p_agent IS NOT NULL THEN
    IF NOT (pg_has_role(session_user, 'aq_administrator_role', 'MEMBER')
            OR coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = session_user), false))
       OR NOT EXISTS (SELECT 1 FROM aq.agent_db_access d
                      WHERE d.agent_name = p_agent AND d.db_username = who) THEN
      PERFORM aq.err(1031, format('insufficient privileges: %s may not register for agent %s '
                                  '(agents register through the IDAP gateway)', who,
                                  quote_literal(left(p_agent, 100))), '42501');
    END IF;
  END IF;
  q := aq.resolve_destination(p_queue, p_lookup);
  IF NOT aq.has_access_as(q, 'DEQUEUE', who) THEN
    PERFORM aq.err(1031, format('insufficient privileges: DEQUEUE on %s.%s for %s',
                                q.schema_name, q.queue_name, who), '42501');
  END IF;
  IF consumer IS NOT NULL AND NOT q.multiple_consumers THEN
    PERFORM aq.err(24039, format('Queue %s.%s not created in queue table for multiple consumers: consumer_name not allowed',
                                 q.schema_name, q.queue_name), '22023');
  END IF;
  IF consumer IS NULL AND q.multiple_consumers THEN
    PERFORM aq.err(25231, format('registration on multi-consumer queue %s.%s needs a consumer_name',
                                 q.schema_name, q.queue_name), '22023');
  END IF;
  IF coalesce(p_namespace, 0) NOT IN (0, 1) THEN
    PERFORM aq.err(24945, format('invalid namespace %s: use dbms_aq.namespace_aq() or namespace_anonymous()', p_namespace), '22023');
  END IF;
  IF pres NOT IN ('XML', 'RAW') THEN
    PERFORM aq.err(24946, format('invalid presentation %s: use XML or RAW', quote_literal(pres)), '22023');
  END IF;
  IF flags < 0 OR flags > 7 THEN
    PERFORM aq.err(24947, format('invalid qosflags %s: combine 1 (reliable), 2 (payload), 4 (purge on notification)', flags), '22023');
  END IF;
  IF flags & 2 <> 0 AND q.payload_kind <> 'RAW' THEN
    PERFORM aq.err(24948, format('payload delivery is for RAW queues; %s.%s holds %s', q.schema_name, q.queue_name,
                                 q.payload_type), '22023');
  END IF;
  IF coalesce(p_timeout, 0) < 0 THEN
    PERFORM aq.err(24949, format('invalid registration timeout %s: seconds, 0 for none', p_timeout), '22023');
  END IF;
  IF u.scheme IN ('http', 'https') AND NOT aq.notification_host_allowed(u.host) THEN
    PERFORM aq.err(24950, format('notifications may not go to %s: an administrator allows hosts with '
                                 'CALL aq.allow_notification_host(''%s'')', u.host, u.host), '42501');
  END IF;
  -- one registration at a time per agent or role: the count and the insert are one step
  key := coalesce(p_agent, who);
  PERFORM pg_advisory_xact_lock(hashtextextended('aq.register ' || key, 0));
  SELECT r.id, r.owner INTO old FROM aq.registrations r
  WHERE r.queue_id = q.queue_id AND r.consumer_name = coalesce(consumer, '') AND r.notify_url = url
  FOR UPDATE;
  IF old.id IS NOT NULL AND old.owner <> who AND NOT admin
     AND NOT pg_has_role(who, old.owner, 'MEMBER') THEN
    PERFORM aq.err(1031, 'insufficient privileges: the registration belongs to another user', '42501');
  END IF;
  IF old.id IS NULL AND (SELECT count(*) FROM aq.registrations r
                         WHERE coalesce(r.agent_name, r.owner) = key) >= lim THEN
    PERFORM aq.err(24951, format('%s already has %s registrations, the limit', key, lim), '54000');
  END IF;
  INSERT INTO aq.registrations AS r (queue_id, consumer_name, notify_url, presentation, agent_name, owner,
                                     user_context, timeout_s, purge_on_notify, payload_delivery,
                                     namespace, expires_at)
  VALUES (q.queue_id, coalesce(consumer, ''), url, pres, p_agent, who, p_context,
          nullif(p_timeout, 0), flags & 4 <> 0, flags & 2 <> 0, coalesce(p_namespace, 0),
          CASE WHEN coalesce(p_timeout, 0) > 0 THEN now() + make_interval(secs => p_timeout) END)
  ON CONFLICT (queue_id, consumer_name, notify_url) DO UPDATE
    SET agent_name = EXCLUDED.agent_name, presentation = EXCLUDED.presentation,
        user_context = EXCLUDED.user_context, timeout_s = EXCLUDED.timeout_s,
        purge_on_notify = EXCLUDED.purge_on_notify, payload_delivery = EXCLUDED.payload_delivery,
        namespace = EXCLUDED.namespace, expires_at = EXCLUDED.expires_at
    WHERE r.owner = who OR admin OR pg_has_role(who, r.owner, 'MEMBER')
  RETURNING r.id INTO id;
  IF id IS NULL THEN  -- made meanwhile by another owner
    PERFORM aq.err(1031, 'insufficient privileges: the registration belongs to another user', '42501');
  END IF;
  PERFORM pg_notify('aq_notify', 'registrations');  -- the notifier re-reads its timers
  RETURN id;
END $$;

-- Removes a registration; row security lets only its owner or an administrator do it.
CREATE OR REPLACE FUNCTION aq.unregister(p_queue text, p_consumer text, p_url text,
                                         p_lookup text DEFAULT 'DATABASE') RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  q aq.queue_info := aq.resolve_destination(p_queue, p_lookup);
  gone bigint;
BEGIN
  DELETE FROM aq.registrations r
  WHERE r.queue_id = q.queue_id AND r.consumer_name = coalesce(aq.agent_name(p_consumer), '')
    AND r.notify_url = btrim(p_url)
  RETURNING r.id INTO gone;
  IF gone IS NULL THEN
    PERFORM aq.err(24952, format('no registration of yours for %s.%s%s at %s', q.schema_name, q.queue_name,
                                     coalesce(':' || aq.agent_name(p_consumer), ''),
                                     quote_literal(left(p_url, 100))), '42704');
  END IF;
  RETURN true;
END $$;

-- name: SCHEMA.QUEUE or SCHEMA.QUEUE:CONSUMER (Oracle's subscription name)
CREATE OR REPLACE FUNCTION aq.split_reg_name(p_name text, OUT queue text, OUT consumer text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  parts text[] := regexp_match(btrim(coalesce(p_name, '')), '^([^:]+)(:(.+))?$');
BEGIN
  IF parts IS NULL THEN
    PERFORM aq.err(24953, format('invalid registration name %s: use schema.queue or schema.queue:consumer',
                                     quote_literal(left(p_name, 100))), '22023');
  END IF;
  queue := parts[1];
  consumer := parts[3];
END $$;

CREATE OR REPLACE PROCEDURE dbms_aq.register(reg_list sys.aq$_reg_info[], count integer)
LANGUAGE plpgsql AS $$
DECLARE
  r sys.aq$_reg_info;
  n record;
BEGIN
  IF count IS NULL OR count < 0 OR count > coalesce(cardinality(reg_list), 0) THEN
    PERFORM aq.err(24954, format('count %s does not match the %s registrations given', count,
                                     coalesce(cardinality(reg_list), 0)), '22023');
  END IF;
  FOR i IN 1 .. count LOOP
    r := reg_list[i];
    n := aq.split_reg_name(r.name);
    PERFORM aq.register(n.queue, n.consumer, r.callback, NULL, 'DATABASE', NULL,
                        coalesce(r.timeout, 0), coalesce(r.qosflags, 0), r.context, coalesce(r.namespace, 0));
  END LOOP;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aq.unregister(reg_list sys.aq$_reg_info[], count integer)
LANGUAGE plpgsql AS $$
DECLARE
  r sys.aq$_reg_info;
  n record;
BEGIN
  IF count IS NULL OR count < 0 OR count > coalesce(cardinality(reg_list), 0) THEN
    PERFORM aq.err(24954, format('count %s does not match the %s registrations given', count,
                                     coalesce(cardinality(reg_list), 0)), '22023');
  END IF;
  FOR i IN 1 .. count LOOP
    r := reg_list[i];
    n := aq.split_reg_name(r.name);
    PERFORM aq.unregister(n.queue, n.consumer, r.callback);
  END LOOP;
END $$;

-- ---------------------------------------------------------------------------------------
-- The outbox

-- Called by every enqueue path, in the enqueue's transaction, when the queue has
-- registrations: one notification per (registration, message) for the registration's
-- consumer; a purge-on-notification registration gets the first and goes.
CREATE OR REPLACE FUNCTION aq.notify_enqueued(p_queue_id integer, p_ids bytea[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  q aq.queue_info;
  n bigint;
  msgs text;
  args jsonb;  -- the statements' (templates notify.*, R__13_templates)
BEGIN
  SELECT * INTO q FROM aq.queue_info WHERE queue_id = p_queue_id;
  -- the messages, persistent or buffered (the queue table's companion, R__11_buffered: "The
  -- delivery mode of the message is available in the message descriptor", Oracle Streams
  -- Advanced Queuing User's Guide and Reference 10g Release 2 (10.2), "Introducing Oracle
  -- Streams AQ", "Asynchronous Notifications")
  FOR q IN SELECT (y.r).* FROM (SELECT q AS r UNION ALL SELECT aq.buffered_info(q)
                                 WHERE to_regclass(format('%I.%I', q.table_schema, 'aq$_' || q.table_name || '_b')) IS NOT NULL) y LOOP
    args := jsonb_build_object('schema', q.table_schema, 'table', q.table_name, 'recipients', q.recipients_table,
                               'queue_id', q.queue_id,
                               'raw', CASE WHEN q.payload_kind = 'RAW' THEN 'm.user_data' ELSE 'NULL::bytea' END);
    msgs := CASE WHEN msgs IS NULL THEN '' ELSE msgs || ' UNION ALL ' END
            || aq.render_notify_messages(args || jsonb_build_object(
                 'consumer', CASE WHEN q.multiple_consumers THEN 'rc.consumer_name' ELSE 'NULL::text' END,
                 'join', CASE WHEN q.multiple_consumers THEN aq.render_notify_join_recipients(args) ELSE '' END));
    IF aq.has_audience(q) THEN
      -- the implicit recipients (R__12_audience) that have a registration: a subscriber
      -- reading the audience is notified as one with a row would be
      msgs := msgs || ' UNION ALL ' || aq.render_notify_messages_implicit(args || jsonb_build_object(
        'consumer', 'rc.name', 'join', aq.render_notify_join_audience(
          args || jsonb_build_object('implicit', aq.implicit_expr('rc', 'm')))));
    END IF;
  END LOOP;
  EXECUTE aq.render_notify_insert(jsonb_build_object('msgs', msgs))
  INTO n USING p_ids, p_queue_id, q.schema_name || '.' || q.queue_name;
  IF n > 0 THEN
    PERFORM pg_notify('aq_notify', '');
  END IF;
END $$;

-- Registrations whose timeout passed go, each with a last notification saying so.
CREATE OR REPLACE FUNCTION aq.expire_registrations(p_now timestamptz) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  n integer;
BEGIN
  WITH gone AS (
    DELETE FROM aq.registrations r WHERE r.expires_at <= least(p_now, clock_timestamp()) RETURNING r.*
  ), ins AS (
    INSERT INTO aq.notifications (registration_id, event, queue_id, queue_name, consumer_name, reg_name,
                                  namespace, url, dest_key, presentation, owner, agent_name, user_context)
    SELECT g.id, 'TIMEOUT', g.queue_id, q.schema_name || '.' || q.queue_name, nullif(g.consumer_name, ''),
           q.schema_name || '.' || q.queue_name || coalesce(':' || nullif(g.consumer_name, ''), ''),
           g.namespace, g.notify_url, aq.notify_dest_key(g.notify_url), g.presentation, g.owner,
           g.agent_name, g.user_context
    FROM gone g JOIN aq.queue_info q ON q.queue_id = g.queue_id
    RETURNING 1
  )
  SELECT count(*) INTO n FROM ins;
  IF n > 0 THEN
    PERFORM pg_notify('aq_notify', '');
  END IF;
  RETURN n;
END $$;

REVOKE EXECUTE ON FUNCTION aq.expire_registrations(timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.expire_registrations(timestamptz) TO aq_administrator_role;

-- ---------------------------------------------------------------------------------------
-- plsql:// callbacks. The notifier calls them on a login of their own (aq.callback_login)
-- that holds no privileges, through a trampoline per owner: aq_callbacks.run_<owner oid>,
-- SECURITY DEFINER and owned by the registration's owner, so the procedure runs as the
-- owner and cannot change its role (PostgreSQL refuses SET ROLE, RESET ROLE and SET
-- SESSION AUTHORIZATION inside a security-definer function); whatever it leaves behind
-- (deferred triggers, settings, temporary objects) runs as, or belongs to, the powerless
-- login, which the notifier resets after every call.

-- The callback login of this database: made (or its password renewed) on first use.
CREATE OR REPLACE FUNCTION aq.callback_login(OUT rolname name, OUT password text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  want name := 'aq_cb_' || (SELECT d.oid FROM pg_database d WHERE d.datname = current_database());
  pw text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('aq.callback_login', 0));
  SELECT l.rolname, l.password INTO rolname, password FROM aq.callback_login l;
  IF rolname = want AND EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = want AND r.rolcanlogin
                                AND NOT r.rolsuper) THEN
    RETURN;
  END IF;
  pw := replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
  IF EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = want) THEN
    EXECUTE aq.sql('ALTER ROLE {{role:ident}} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS '
                   'INHERIT PASSWORD {{password:literal}}', jsonb_build_object('role', want, 'password', pw));
  ELSE
    EXECUTE aq.sql('CREATE ROLE {{role:ident}} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS '
                   'INHERIT PASSWORD {{password:literal}}', jsonb_build_object('role', want, 'password', pw));
  END IF;
  EXECUTE aq.sql('GRANT aq_callback_runner TO {{role:ident}}', jsonb_build_object('role', want));
  INSERT INTO aq.callback_login (rolname, password) VALUES (want, pw)
  ON CONFLICT (id) DO UPDATE SET rolname = EXCLUDED.rolname, password = EXCLUDED.password;
  rolname := want;
  password := pw;
END $$;
REVOKE EXECUTE ON FUNCTION aq.callback_login() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.callback_login() TO aq_administrator_role;

-- The trampoline of `p_owner`, made or remade when missing or changed (its owner may alter
-- it: then it runs as the powerless login and is remade before the next call).
CREATE OR REPLACE FUNCTION aq.callback_runner(p_owner name) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
DECLARE
  owner_oid oid := (SELECT r.oid FROM pg_roles r WHERE r.rolname = p_owner);
  fname text := 'run_' || owner_oid;
  body text := 'BEGIN PERFORM aq.run_plsql_callback(p_id, p_claimer); END';
  ok boolean;
  args jsonb;
BEGIN
  IF owner_oid IS NULL THEN
    PERFORM aq.err(1917, format('the registration''s owner %s does not exist any more', p_owner), '42704');
  END IF;
  SELECT p.proowner = owner_oid AND p.prosecdef AND p.prosrc = body
         AND p.proconfig = ARRAY['search_path="$user", public'] AND NOT p.proleakproof
    INTO ok
  FROM pg_proc p
  WHERE p.pronamespace = 'aq_callbacks'::regnamespace AND p.proname = fname;
  IF ok THEN
    RETURN fname;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('aq.callback_runner ' || fname, 0));
  args := jsonb_build_object('fn', fname, 'body', body, 'owner', p_owner);
  EXECUTE aq.sql('DROP FUNCTION IF EXISTS aq_callbacks.{{fn:ident}}(uuid, text)', args);
  EXECUTE aq.sql('CREATE FUNCTION aq_callbacks.{{fn:ident}}(p_id uuid, p_claimer text) RETURNS void '
                 'LANGUAGE plpgsql SECURITY DEFINER SET search_path = "$user", public AS {{body:literal}}', args);
  EXECUTE aq.sql('REVOKE ALL ON FUNCTION aq_callbacks.{{fn:ident}}(uuid, text) FROM PUBLIC', args);
  EXECUTE aq.sql('GRANT EXECUTE ON FUNCTION aq_callbacks.{{fn:ident}}(uuid, text) TO aq_callback_runner', args);
  EXECUTE aq.sql('ALTER FUNCTION aq_callbacks.{{fn:ident}}(uuid, text) OWNER TO {{owner:ident}}', args);
  RETURN fname;
END $$;
REVOKE EXECUTE ON FUNCTION aq.callback_runner(name) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.callback_runner(name) TO aq_administrator_role;

-- On the callback login: call the owner's trampoline for notification p_id.
CREATE OR REPLACE FUNCTION aq.invoke_callback(p_runner text, p_id uuid, p_claimer text) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  IF p_runner !~ '^run_[0-9]+$' THEN
    PERFORM aq.err(24940, format('invalid callback runner %s', quote_literal(left(p_runner, 100))), '22023');
  END IF;
  EXECUTE aq.render_callback_invoke(jsonb_build_object('runner', p_runner)) USING p_id, p_claimer;
END $$;

-- Inside the trampoline, as the owner: the procedure with Oracle's arguments (context
-- bytea, reginfo sys.aq$_reg_info, descr sys.aq$_descriptor, payload bytea, payloadl
-- integer); only the owner's own notification that this notifier is delivering.
CREATE OR REPLACE FUNCTION aq.run_plsql_callback(p_id uuid, p_claimer text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  n aq.notifications;
  target text;
  reginfo sys.aq$_reg_info;
  descr sys.aq$_descriptor;
BEGIN
  SELECT * INTO n FROM aq.notifications x
  WHERE x.id = p_id AND x.claimed_by = p_claimer AND x.state = 'SENDING' AND x.owner = current_user;
  IF NOT FOUND THEN
    PERFORM aq.err(1031, 'insufficient privileges: no notification of yours is being delivered under this id', '42501');
  END IF;
  target := (aq.parse_notify_url(n.url)).target;
  reginfo := ROW(n.reg_name, n.namespace, n.url, n.user_context,
                 (CASE WHEN n.payload IS NOT NULL THEN 2 ELSE 0 END), 0)::sys.aq$_reg_info;
  descr := ROW(n.msgid, n.consumer_name, n.queue_name,
               ROW((n.message->>'priority')::integer, (n.message->>'delay')::integer,
                   (n.message->>'expiration')::integer, n.message->>'correlation',
                   (n.message->>'attempts')::integer, NULL, n.message->>'exception_queue',
                   (n.message->>'enq_time')::timestamptz, (n.message->>'state')::integer,
                   CASE WHEN n.message->>'sender_name' IS NOT NULL OR n.message->>'sender_address' IS NOT NULL
                        THEN ROW(n.message->>'sender_name', n.message->>'sender_address',
                                 (n.message->>'sender_protocol')::integer)::sys.aq$_agent END,
                   decode(n.message->>'original_msgid', 'hex'), NULL, NULL, NULL, 'PERSISTENT'
               )::dbms_aq.message_properties_t,
               CASE n.event WHEN 'TIMEOUT' THEN 1 ELSE 0 END)::sys.aq$_descriptor;
  EXECUTE aq.render_callback_call(jsonb_build_object('schema', split_part(target, '.', 1),
                                                      'procedure', split_part(target, '.', 2)))
    USING n.user_context, reginfo, descr, n.payload, length(n.payload);
END $$;

-- On the callback login, after the call in its transaction: the procedure's work and its
-- notification's state commit together (a plsql notification runs once).
CREATE OR REPLACE FUNCTION aq.plsql_delivered(p_id uuid, p_claimer text, p_now timestamptz) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, aq AS $$
  UPDATE aq.notifications
  SET state = 'DELIVERED', finished_at = p_now, lease_until = NULL, last_error = NULL
  WHERE id = p_id AND claimed_by = p_claimer AND state = 'SENDING'
  RETURNING true
$$;
REVOKE EXECUTE ON FUNCTION aq.plsql_delivered(uuid, text, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION aq.plsql_delivered(uuid, text, timestamptz) TO aq_callback_runner;

-- ---------------------------------------------------------------------------------------
-- DBMS_AQELM: the SMTP server e-mail notifications go through (administrators only)

CREATE OR REPLACE PROCEDURE dbms_aqelm.set_mailhost(mailhost text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('dbms_aqelm.set_mailhost');
  IF mailhost IS NOT NULL AND btrim(mailhost) !~ '^[A-Za-z0-9]([A-Za-z0-9.:-]*[A-Za-z0-9])?$' THEN
    PERFORM aq.err(24940, format('invalid mail host %s', quote_literal(left(mailhost, 100))), '22023');
  END IF;
  UPDATE aq.notification_settings SET mailhost = btrim(set_mailhost.mailhost);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqelm.get_mailhost(INOUT mailhost text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('dbms_aqelm.get_mailhost');
  SELECT s.mailhost INTO get_mailhost.mailhost FROM aq.notification_settings s;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqelm.set_mailport(mailport integer)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('dbms_aqelm.set_mailport');
  IF mailport IS NULL OR mailport < 1 OR mailport > 65535 THEN
    PERFORM aq.err(24940, format('invalid mail port %s', mailport), '22023');
  END IF;
  UPDATE aq.notification_settings SET mailport = set_mailport.mailport;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqelm.get_mailport(INOUT mailport integer)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('dbms_aqelm.get_mailport');
  SELECT s.mailport INTO get_mailport.mailport FROM aq.notification_settings s;
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqelm.set_sendfrom(sendfrom text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('dbms_aqelm.set_sendfrom');
  IF sendfrom IS NOT NULL AND btrim(sendfrom) !~ '^[^@\s<>]+@[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$' THEN
    PERFORM aq.err(24940, format('invalid sender address %s', quote_literal(left(sendfrom, 100))), '22023');
  END IF;
  UPDATE aq.notification_settings SET sendfrom = btrim(set_sendfrom.sendfrom);
END $$;

CREATE OR REPLACE PROCEDURE dbms_aqelm.get_sendfrom(INOUT sendfrom text)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('dbms_aqelm.get_sendfrom');
  SELECT s.sendfrom INTO get_sendfrom.sendfrom FROM aq.notification_settings s;
END $$;

CREATE OR REPLACE PROCEDURE aq.set_max_registrations(n integer)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aq.require_admin('set_max_registrations');
  IF n IS NULL OR n < 1 THEN
    PERFORM aq.err(24940, format('invalid registration limit %s', n), '22023');
  END IF;
  UPDATE aq.notification_settings SET max_registrations = n;
END $$;

-- ---------------------------------------------------------------------------------------
-- Views: registrations (Oracle's DBA_SUBSCR_REGISTRATIONS) and the notifications' outcome

CREATE OR REPLACE VIEW aq.dba_subscr_registrations WITH (security_invoker = true) AS
SELECT r.id AS reg_id,
       q.schema_name || '.' || q.queue_name || coalesce(':' || nullif(r.consumer_name, ''), '') AS subscription_name,
       r.notify_url AS location_name, r.owner AS user_name, r.agent_name, r.namespace,
       r.presentation, r.user_context,
       (CASE WHEN r.payload_delivery THEN 2 ELSE 0 END + CASE WHEN r.purge_on_notify THEN 4 ELSE 0 END) AS qosflags,
       r.payload_delivery, r.purge_on_notify, coalesce(r.timeout_s, 0) AS timeout,
       r.created_at AS reg_time, r.expires_at,
       CASE WHEN r.expires_at IS NOT NULL AND r.expires_at <= now() THEN 'EXPIRED' ELSE 'ACTIVE' END AS status
FROM aq.registrations r JOIN aq.queues q ON q.id = r.queue_id;
GRANT SELECT ON aq.dba_subscr_registrations TO PUBLIC;

CREATE OR REPLACE VIEW aq.user_subscr_registrations WITH (security_invoker = true) AS
SELECT * FROM aq.dba_subscr_registrations WHERE user_name = current_user;
GRANT SELECT ON aq.user_subscr_registrations TO PUBLIC;

CREATE OR REPLACE VIEW aq.dba_aq_notifications WITH (security_invoker = true) AS
SELECT n.id AS notification_id, n.registration_id AS reg_id, n.reg_name AS subscription_name, n.event,
       n.queue_name, n.consumer_name, upper(encode(n.msgid, 'hex')) AS msg_id, n.url AS location_name,
       n.owner AS user_name, n.agent_name, n.state, n.attempts, n.last_error, n.created_at,
       n.due_at AS next_attempt, n.finished_at
FROM aq.notifications n;
GRANT SELECT ON aq.dba_aq_notifications TO PUBLIC;

CREATE OR REPLACE VIEW public.dba_subscr_registrations WITH (security_invoker = true) AS
SELECT * FROM aq.dba_subscr_registrations;
CREATE OR REPLACE VIEW public.user_subscr_registrations WITH (security_invoker = true) AS
SELECT * FROM aq.user_subscr_registrations;
CREATE OR REPLACE VIEW public.dba_aq_notifications WITH (security_invoker = true) AS
SELECT * FROM aq.dba_aq_notifications;
GRANT SELECT ON public.dba_subscr_registrations, public.user_subscr_registrations,
               public.dba_aq_notifications TO PUBLIC;
