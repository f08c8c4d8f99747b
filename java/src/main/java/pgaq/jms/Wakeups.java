package pgaq.jms;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A JMS Connection's one listening database connection: the enqueue's NOTIFY on channel
 * {@code aq_<queue id>} wakes the receives and listeners waiting on that queue (the
 * connection registers as the queue's waiter, aq.register_waiter: the enqueue notifies
 * only queues that have one; its row goes with the backend, or with the monitor's pass). Its thread
 * owns the database connection (LISTEN, getNotifications); waiters only read counters under
 * this object's monitor. A lost connection is opened again with backoff, every channel
 * LISTENed again and every waiter woken (a message may have come meanwhile); waiters also
 * look on their own every safety poll, so a lost NOTIFY delays, never loses, a delivery.
 * Enqueuers look for waiters without a lock (R__11_wakeups.sql): after registering a queue
 * the thread reads the transactions writing its tables (aq.waiter_writers), before the
 * waiters' first look, and wakes the queue's waiters once those have ended (each tick).
 */
final class Wakeups implements Runnable {
    private static final Logger LOG = Logger.getLogger("pgaq.jms");
    /** How long one getNotifications blocks: the latest a new channel's LISTEN waits. */
    private static final int TICK_MS = 25;

    private final AQjmsConnection owner;
    private final Map<String, Long> counts = new HashMap<>();
    private final Set<String> listening = new HashSet<>();
    private long epoch;
    private boolean closed;
    private Thread thread;
    private Connection db;
    /** The last attempt to open the listening connection failed: waiters do not wait for it. */
    private boolean down;
    private boolean connectedBefore;
    /** Reconnected: wake every waiter once its channels are LISTENed again. */
    private boolean rewake;
    /** Channels registered while transactions (these virtual ids) wrote their queue's
     *  tables: woken when none of them is left. The listening thread's own. */
    private final Map<String, String[]> following = new HashMap<>();

    Wakeups(AQjmsConnection owner) {
        this.owner = owner;
    }

    /**
     * The channel's wake count, once its LISTEN is in effect (so a NOTIFY after this returns
     * is seen). Waits at most a tick or two for the listening thread; if the database is
     * unreachable, returns at once (the waiter polls).
     */
    synchronized long register(String channel) throws InterruptedException {
        startIfNeeded();
        Long seen = counts.get(channel);
        if (seen == null) {
            counts.put(channel, 0L);
            seen = 0L;
        }
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (!closed && !listening.contains(channel) && !down) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                break;
            }
            wait(left);
        }
        return counts.get(channel);
    }

    /** Wait until the channel is woken after {@code seen}, {@link #wakeAll} runs, or
     *  {@code millis} pass. */
    synchronized void await(String channel, long seen, long epochSeen, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (!closed && epoch == epochSeen && counts.getOrDefault(channel, 0L) == seen) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                return;
            }
            wait(left);
        }
    }

    /** As {@link #await} for several channels: until one is woken past what {@code seen} says. */
    synchronized void awaitAny(java.util.Map<String, Long> seen, long epochSeen, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (!closed && epoch == epochSeen) {
            for (java.util.Map.Entry<String, Long> e : seen.entrySet()) {
                if (counts.getOrDefault(e.getKey(), 0L).longValue() != e.getValue().longValue()) {
                    return;
                }
            }
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                return;
            }
            wait(left);
        }
    }

    /** A count that {@link #wakeAll} advances: a waiter notes it before looking. */
    synchronized long epoch() {
        return epoch;
    }

    /** Wake every waiter (connection started or stopped, a consumer closing, a reconnect). */
    synchronized void wakeAll() {
        epoch++;
        notifyAll();
    }

    private void startIfNeeded() {
        if (thread == null && !closed) {
            thread = new Thread(this, "pgaq-jms-wakeups-" + owner.id());
            thread.setDaemon(true);
            thread.start();
        }
    }

    void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            epoch++;
            notifyAll();
            t = thread;
        }
        if (t != null) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        long backoff = 50;
        while (true) {
            synchronized (this) {
                if (closed) {
                    break;
                }
            }
            try {
                if (db == null) {
                    connect();
                    backoff = 50;
                }
                listenNew();
                PGNotification[] got = db.unwrap(PGConnection.class).getNotifications(TICK_MS);
                if (got != null && got.length > 0) {
                    synchronized (this) {
                        for (PGNotification n : got) {
                            counts.computeIfPresent(n.getName(), (k, v) -> v + 1);
                        }
                        notifyAll();
                    }
                }
                followWriters();
            } catch (SQLException | RuntimeException e) {
                // a RuntimeException too: this thread must outlive whatever the driver throws
                lost(e instanceof SQLException ? (SQLException) e : new SQLException(e.toString(), "08006", e));
                synchronized (this) {
                    try {
                        if (!closed) {
                            wait(backoff);
                        }
                    } catch (InterruptedException ie) {
                        break;
                    }
                }
                backoff = Math.min(backoff * 2, 5000);
            }
        }
        closeDb();
    }

    /** The writers of the channel's queue's tables now, or those of {@code among} still
     *  writing. */
    private String[] writers(String channel, String[] among) throws SQLException {
        try (PreparedStatement ps = db.prepareStatement(Sql.load("waiter_writers"))) {
            ps.setInt(1, Integer.parseInt(channel.substring(3)));
            if (among == null) {
                ps.setNull(2, Types.ARRAY);
            } else {
                ps.setArray(2, db.createArrayOf("text", among));
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                Array a = rs.getArray(1);
                return a == null ? new String[0] : (String[]) a.getArray();
            }
        } catch (SQLException e) {
            if ("42883".equals(e.getSQLState())) {
                // a database not yet upgraded: its enqueuers still take the advisory lock
                // its aq.register_waiter waited for, so there is nothing to follow
                return new String[0];
            }
            throw e;
        }
    }

    /** Wake the channels whose followed writers have all ended, as a NOTIFY would. */
    private void followWriters() throws SQLException {
        if (following.isEmpty()) {
            return;
        }
        Set<String> done = new HashSet<>();
        for (Map.Entry<String, String[]> e : following.entrySet()) {
            String[] left = writers(e.getKey(), e.getValue());
            if (left.length == 0) {
                done.add(e.getKey());
            } else {
                e.setValue(left);
            }
        }
        if (!done.isEmpty()) {
            following.keySet().removeAll(done);
            synchronized (this) {
                for (String ch : done) {
                    counts.computeIfPresent(ch, (k, v) -> v + 1);
                }
                notifyAll();
            }
        }
    }

    private void connect() throws SQLException {
        following.clear();  // the reconnect wakes every waiter, and registers afresh
        Connection c = owner.openDatabase();
        synchronized (this) {
            db = c;
            down = false;
            rewake = connectedBefore;
            connectedBefore = true;
            listening.clear();
        }
    }

    private void listenNew() throws SQLException {
        Set<String> todo = new HashSet<>();
        synchronized (this) {
            for (String ch : counts.keySet()) {
                if (!listening.contains(ch)) {
                    todo.add(ch);
                }
            }
        }
        if (todo.isEmpty()) {
            synchronized (this) {
                if (rewake) {
                    rewake = false;
                    epoch++;
                    notifyAll();
                }
            }
            return;
        }
        try (Statement st = db.createStatement();
             PreparedStatement register = db.prepareStatement(Sql.load("register_waiter"))) {
            for (String ch : todo) {
                // channel names are aq_<integer>: made here, never from user input
                st.execute("LISTEN " + ch);
                register.setInt(1, Integer.parseInt(ch.substring(3)));
                register.executeQuery().close();
                // (registered, not yet LISTENed as far as waiters know: their first look
                // comes after this read)
                String[] w = writers(ch, null);
                if (w.length > 0) {
                    following.put(ch, w);
                }
            }
        }
        synchronized (this) {
            listening.addAll(todo);
            if (rewake) {
                rewake = false;
                epoch++;
            }
            notifyAll();
        }
    }

    private void lost(SQLException e) {
        boolean wasOpen;
        synchronized (this) {
            wasOpen = db != null;
        }
        closeDb();
        synchronized (this) {
            listening.clear();
            down = true;
            epoch++;
            notifyAll();
        }
        if (wasOpen) {
            LOG.log(Level.WARNING, "pgaq.jms: the listening connection was lost; reconnecting", e);
            owner.report(Sql.error(e));
        }
    }

    private void closeDb() {
        Connection c;
        synchronized (this) {
            c = db;
            db = null;
        }
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing a lost connection: nothing more to do
            }
        }
    }
}
