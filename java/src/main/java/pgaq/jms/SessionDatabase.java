package pgaq.jms;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import javax.jms.JMSException;
import javax.jms.Session;
import javax.jms.TransactionRolledBackException;

/**
 * A session's database work: its own connection (one owner), the transaction that holds what
 * the session received and sent but has not settled, and the statements every pgaq client
 * runs (aq.enqueue_array, aq.dequeue_array, aq.record_failed_attempts).
 *
 * <pre>
 * mode                 connection autocommit        settled by
 * -------------------  ---------------------------  -----------------------------------------
 * transacted           off                          commit(), rollback()
 * AUTO, DUPS_OK        off for a PERSISTENT REMOVE  receive: settleReceive() before it
 *                      (BEGIN sent with it), else   returns; a NON_PERSISTENT one: the
 *                      on; off while a listener     statement itself; a listener: its return
 *                      has a message                (commit) or exception (rollback)
 * CLIENT_ACKNOWLEDGE   off once a message is taken  acknowledge() (commit), recover() (rollback)
 * </pre>
 * A rolled-back REMOVE counts as a failed attempt (aq.record_failed_attempts), as Oracle's
 * rollback does: past max_retries the message goes to the exception queue. Sends of a
 * non-transacted session are visible at once, so while a CLIENT_ACKNOWLEDGE transaction is
 * open they go through a second connection of the session's.
 */
final class SessionDatabase {
    final ReentrantLock lock = new ReentrantLock();
    private final AQjmsSession session;
    private final Map<String, DestInfo> infos = new ConcurrentHashMap<>();
    /** Ids REMOVEd in the open transaction, by (queue, consumer, buffered). */
    private final Map<List<Object>, List<String>> removed = new LinkedHashMap<>();
    /** Ids a transacted session sent in the open transaction, by queue: not received back. */
    private final Map<String, List<String>> sent = new LinkedHashMap<>();
    private Connection db;
    private Connection aside;
    private boolean pending;
    /** The open transaction died with its connection, found by a statement before it was
     *  settled: its commit (or acknowledge) must say so rather than commit what was done
     *  since on a new connection. */
    private boolean lost;

    SessionDatabase(AQjmsSession session) {
        this.session = session;
    }

    private Connection main() throws SQLException {
        if (db == null) {
            db = session.connection().openDatabase();
            if (session.getTransactedQuietly()) {
                db.setAutoCommit(false);
            }
        }
        return db;
    }

    /** The connection for application SQL (AQjmsSession.getDBConnection). */
    Connection connection() throws JMSException {
        try {
            return main();
        } catch (SQLException e) {
            throw Sql.error(e);
        }
    }

    /** Whether received messages wait for commit, acknowledge or the listener's return. */
    boolean pending() {
        return pending;
    }

    // -- the catalog ------------------------------------------------------------------------
    DestInfo info(AQjmsDestination d) throws JMSException {
        return info(d.getCompleteName());
    }

    /** The queue "owner.name", or "name" in the login's search path (SQL's spelling: cached
     *  by the text as it is, since "Q" and "q" in quotes are two queues). */
    DestInfo info(String name) throws JMSException {
        DestInfo hit = infos.get(name);
        if (hit != null) {
            return hit;
        }
        try (PreparedStatement st = main().prepareStatement(Sql.load("destination"))) {
            st.setString(1, name);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                hit = new DestInfo(rs.getInt(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getBoolean(6), rs.getBoolean(7));
            }
        } catch (SQLException e) {
            throw failed(e);
        } finally {
            endIdle();
        }
        infos.put(name, hit);
        return hit;
    }


    /** Statements of the session's own (selector checks, subscriptions), committed at once:
     *  on the session's connection when no transaction is open there, else on the second. */
    <T> T run(SqlCall<T> call) throws JMSException {
        lock.lock();
        boolean second = false;
        try {
            second = !main().getAutoCommit();
            return call.apply(second ? aside() : main());
        } catch (SQLException e) {
            throw second ? failedAside(e) : failed(e);
        } finally {
            lock.unlock();
        }
    }

    interface SqlCall<T> {
        T apply(Connection c) throws SQLException, JMSException;
    }

    private boolean pendingWork() {
        return pending || !removed.isEmpty() || !sent.isEmpty();
    }

    // -- sending ------------------------------------------------------------------------------
    /** Enqueue one message as the session's mode wants it; its id (hex). */
    String enqueue(DestInfo info, Outgoing o) throws JMSException {
        lock.lock();
        boolean second = false;
        try {
            boolean transacted = session.getTransactedQuietly();
            second = !transacted && pending;
            Connection c = second ? aside() : main();
            String id;
            try (PreparedStatement st = c.prepareStatement(Sql.load("enqueue"))) {
                st.setString(1, info.qualified());
                st.setString(2, o.properties);
                if (o.payloads == null) {
                    st.setNull(3, Types.VARCHAR);
                } else {
                    st.setString(3, o.payloads);
                }
                if (o.raw == null) {
                    st.setNull(4, Types.ARRAY);
                } else {
                    st.setArray(4, c.createArrayOf("bytea", o.raw));
                }
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    id = rs.getString(1);
                }
            }
            if (transacted) {
                sent.computeIfAbsent(info.qualified().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(id);
            }
            return id;
        } catch (SQLException e) {
            throw second ? failedAside(e) : failed(e);
        } finally {
            lock.unlock();
        }
    }

    private Connection aside() throws SQLException {
        if (aside == null) {
            aside = session.connection().openDatabase();
        }
        return aside;
    }

    // -- receiving ------------------------------------------------------------------------------
    /**
     * One look for a message: REMOVE (or {@code mode}) of the next one the consumer may take,
     * persistent or (buffered) NON_PERSISTENT; null when there is none. {@code inTx}: in the
     * session's transaction (settled later), else committed with the statement.
     */
    Dequeued dequeue(DestInfo info, String consumer, String mode, String navigation, String msgid,
            String condition, boolean buffered, boolean inTx) throws JMSException {
        return dequeue(info, consumer, mode, navigation, msgid, condition, null, buffered, inTx);
    }

    /** As above, going on from {@code position} (a browser's last message's). */
    Dequeued dequeue(DestInfo info, String consumer, String mode, String navigation, String msgid,
            String condition, Object[] position, boolean buffered, boolean inTx) throws JMSException {
        return dequeue(info, consumer, mode, navigation, msgid, condition, position, null, buffered, inTx);
    }

    /** As above, in or past the transaction group {@code group} (a grouped queue's
     *  NEXT_MESSAGE and NEXT_TRANSACTION navigation). */
    Dequeued dequeue(DestInfo info, String consumer, String mode, String navigation, String msgid,
            String condition, Object[] position, Long group, boolean buffered, boolean inTx)
            throws JMSException {
        lock.lock();
        try {
            Connection c = main();
            if (inTx && c.getAutoCommit()) {
                c.setAutoCommit(false);
            }
            String cond = condition;
            List<String> mine = sent.get(info.qualified().toLowerCase(Locale.ROOT));
            if (mine != null && !mine.isEmpty() && info.isJms() && msgid == null) {
                // what this transaction sent is not delivered before it commits (JMS 1.1
                // section 4.4.7); the ids are hex the database gave, not user input
                StringBuilder not = new StringBuilder("JMSMessageID NOT IN (");
                for (int i = 0; i < mine.size(); i++) {
                    not.append(i == 0 ? "'ID:" : ", 'ID:").append(mine.get(i)).append('\'');
                }
                not.append(')');
                cond = cond == null ? not.toString() : "(" + cond + ") AND " + not;
            }
            Dequeued d;
            try (PreparedStatement st = c.prepareStatement(Sql.load("dequeue"))) {
                st.setString(1, info.qualified());
                st.setString(2, consumer);
                st.setString(3, mode);
                st.setString(4, navigation);
                st.setString(5, msgid);
                st.setString(6, cond);
                if (position == null) {
                    st.setNull(7, Types.ARRAY);
                } else {
                    st.setArray(7, c.createArrayOf("bigint", position));
                }
                if (group == null) {
                    st.setNull(8, Types.BIGINT);
                } else {
                    st.setLong(8, group);
                }
                st.setString(9, buffered ? "BUFFERED" : "PERSISTENT");
                try (ResultSet rs = st.executeQuery()) {
                    d = rs.next() ? row(rs, buffered) : null;
                }
            }
            if (d != null && !c.getAutoCommit()) {
                pending = true;
                if (!"BROWSE".equals(mode) && !"LOCKED".equals(mode)) {
                    removed.computeIfAbsent(java.util.Arrays.<Object>asList(info.qualified(), consumer, buffered),
                            k -> new ArrayList<>()).add(d.msgid);
                }
            } else if (d == null && !inTx) {
                endIdle();
            }
            return d;
        } catch (SQLException e) {
            throw failed(e);
        } finally {
            lock.unlock();
        }
    }

    private static Dequeued row(ResultSet rs, boolean buffered) throws SQLException {
        Dequeued d = new Dequeued();
        d.msgid = rs.getString(1);
        d.queueName = rs.getString(2);
        d.consumerName = rs.getString(3);
        d.correlation = rs.getString(4);
        d.priority = rs.getInt(5);
        d.delay = rs.getInt(6);
        int exp = rs.getInt(7);
        d.expiration = rs.wasNull() ? null : exp;
        d.enqueueMicros = rs.getLong(8);
        d.state = rs.getString(9);
        d.attempts = rs.getInt(10);
        d.exceptionQueue = rs.getString(11);
        d.senderName = rs.getString(12);
        d.senderAddress = rs.getString(13);
        d.senderProtocol = rs.getInt(14);
        d.originalMsgid = rs.getString(15);
        d.payloadJson = rs.getString(16);
        d.payloadRaw = rs.getBytes(17);
        d.buffered = buffered;
        java.sql.Array pos = rs.getArray(18);
        d.position = pos == null ? null : (Object[]) pos.getArray();
        long group = rs.getLong(19);
        d.group = rs.wasNull() ? null : group;
        return d;
    }

    /** A look that found nothing in a non-transacted session: no idle transaction kept. */
    void endIdle() {
        // under the lock: Session.close (another thread, unblocking this receive) drops db
        lock.lock();
        try {
            Connection c = db;
            if (c != null && !session.getTransactedQuietly() && !pendingWork() && !c.getAutoCommit()) {
                c.commit();
                c.setAutoCommit(true);
            }
        } catch (SQLException ignored) {
            // the next statement reports a lost connection (or the session is closed)
        } finally {
            lock.unlock();
        }
    }

    /** TopicBrowser.purgeSeen: the messages a browser showed, removed for the durable
     *  subscriber as its receive would; in a transacted session in its transaction (stable at
     *  commit, undone by rollback), else at once. How many were removed. */
    int purge(DestInfo info, String subscriber, List<String> persistent, List<String> buffered)
            throws JMSException {
        lock.lock();
        try {
            boolean transacted = session.getTransactedQuietly();
            Connection c = transacted || main().getAutoCommit() ? main() : aside();
            int n = 0;
            if (!persistent.isEmpty()) {
                try (PreparedStatement st = c.prepareStatement(Sql.load("topic_browser_purge"))) {
                    st.setString(1, info.qualified());
                    st.setString(2, subscriber);
                    st.setArray(3, c.createArrayOf("text", persistent.toArray()));
                    try (ResultSet rs = st.executeQuery()) {
                        rs.next();
                        n += rs.getInt(1);
                    }
                }
                if (transacted) {
                    pending = true;
                }
            }
            for (String id : buffered) {  // the buffered companion: by id, as the receive would
                if (dequeue(info, subscriber, "REMOVE_NODATA", "FIRST_MESSAGE", id, null, true, transacted) != null) {
                    n++;
                }
            }
            return n;
        } catch (SQLException e) {
            throw failed(e);
        } finally {
            lock.unlock();
        }
    }

    // -- settling ---------------------------------------------------------------------------------
    /**
     * AUTO_ACKNOWLEDGE receive: commit the REMOVE of the message about to be returned (it
     * ran in a transaction so that its rows reached the client before anything committed:
     * an autocommit REMOVE commits first, and a connection lost before its answer lost the
     * message). A connection lost during the COMMIT leaves its outcome unknown: this returns
     * normally, the message goes to the application, and if the server did not commit it
     * comes again flagged JMSRedelivered (maybeDelivered): a duplicate, never a loss. A
     * COMMIT the server refused took nothing: the receive fails, the message stays.
     */
    void settleReceive() throws JMSException {
        lock.lock();
        try {
            if (db != null && !db.getAutoCommit()) {
                db.commit();
                db.setAutoCommit(true);
            }
        } catch (SQLException e) {
            if (Sql.connectionLost(e)) {
                lostWith();
                lost = false;  // nothing of the application's was in that transaction
                return;
            }
            try {
                db.rollback();
                db.setAutoCommit(true);
            } catch (SQLException ignored) {
                // the next statement reports it
            }
            throw Sql.error(e);
        } finally {
            clear();
            lock.unlock();
        }
    }

    /** Commit what the open transaction holds (commit, acknowledge, a listener's return). */
    void commit() throws JMSException {
        lock.lock();
        try {
            if (lost) {
                rollback();  // the work since the loss belongs to the lost transaction
                throw lostTransaction(null);
            }
            if (db != null && !db.getAutoCommit()) {
                db.commit();
                if (!session.getTransactedQuietly()) {
                    db.setAutoCommit(true);
                }
            }
        } catch (SQLException e) {
            if (Sql.connectionLost(e)) {
                lostWith();
                lost = false;
                throw lostTransaction(e);
            }
            // the server refused the COMMIT and rolled back: the messages come again
            for (List<String> ids : removed.values()) {
                session.connection().maybeDelivered.addAll(ids);
            }
            throw Sql.error(e);
        } finally {
            clear();
            lock.unlock();
        }
    }

    /** Roll back, then count each rolled-back REMOVE as a failed delivery attempt. The
     *  session's consumers navigate from the head again: what was taken comes again in queue
     *  order. */
    void rollback() throws JMSException {
        lock.lock();
        Map<List<Object>, List<String>> undone = new LinkedHashMap<>(removed);
        try {
            lost = false;
            clear();
            for (AQjmsConsumer c : session.consumers()) {
                c.forgetPositions();
            }
            if (db == null) {
                return;
            }
            if (!db.getAutoCommit()) {
                db.rollback();
            }
            for (Map.Entry<List<Object>, List<String>> e : undone.entrySet()) {
                try (PreparedStatement st = db.prepareStatement(Sql.load("failed_attempts"))) {
                    st.setString(1, (String) e.getKey().get(0));
                    st.setString(2, (String) e.getKey().get(1));
                    st.setArray(3, db.createArrayOf("text", e.getValue().toArray()));
                    st.setBoolean(4, (Boolean) e.getKey().get(2));
                    st.executeQuery().close();
                }
            }
            if (!db.getAutoCommit()) {
                db.commit();
                if (!session.getTransactedQuietly()) {
                    db.setAutoCommit(true);
                }
            }
        } catch (SQLException e) {
            if (Sql.connectionLost(e)) {
                lostWith();  // the server rolled back with it
                lost = false;
                return;
            }
            throw Sql.error(e);
        } finally {
            lock.unlock();
        }
    }

    private void clear() {
        removed.clear();
        sent.clear();
        pending = false;
    }

    /** A statement failed: a lost connection is dropped (the next use opens another; what the
     *  transaction held was rolled back by the server). */
    private JMSException failed(SQLException e) {
        if (Sql.connectionLost(e)) {
            lostWith();
        }
        return Sql.error(e);
    }

    /** A statement on the second connection failed: a lost one is dropped (the next use
     *  opens another); the session's transaction, on the first, is not its concern. */
    private JMSException failedAside(SQLException e) {
        if (Sql.connectionLost(e)) {
            Connection c = aside;
            aside = null;
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // lost already
                }
            }
        }
        return Sql.error(e);
    }

    /** The session's connection is gone, and with it what its transaction held: remembered
     *  for the commit (lost), the messages it took for their redelivery (maybeDelivered). */
    private void lostWith() {
        if (pendingWork()) {
            lost = true;
        }
        for (List<String> ids : removed.values()) {
            session.connection().maybeDelivered.addAll(ids);
        }
        clear();
        dropConnection();
    }

    private static TransactionRolledBackException lostTransaction(SQLException cause) {
        TransactionRolledBackException t = new TransactionRolledBackException(
                "JMS-220: the transaction was rolled back: its database connection was lost", "JMS-220");
        if (cause != null) {
            t.setLinkedException(cause);
            t.initCause(cause);
        }
        return t;
    }

    private void dropConnection() {
        Connection c = db;
        db = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // lost already
            }
        }
    }

    void close() {
        lock.lock();
        try {
            for (Connection c : new Connection[] {db, aside}) {
                if (c != null) {
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // closing: nothing to report
                    }
                }
            }
            db = null;
            aside = null;
            clear();
        } finally {
            lock.unlock();
        }
    }

    static boolean receivesInTransaction(int ackMode) {
        return ackMode == Session.SESSION_TRANSACTED || ackMode == Session.CLIENT_ACKNOWLEDGE;
    }
}
