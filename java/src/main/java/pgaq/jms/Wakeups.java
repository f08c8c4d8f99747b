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
 * owns the database connection (LISTEN, getNotifications); who a NOTIFY wakes is
 * {@link WaitGroups}' (every waiter of the channel, or one of those that compete for the
 * same messages). A lost connection is opened again with backoff, every channel LISTENed
 * again and every waiter woken (a message may have come meanwhile). Every safety poll the
 * thread wakes one waiter of each shared key for a look (those without a key time their
 * own), so a lost NOTIFY delays, never loses, a delivery.
 * Enqueuers look for waiters without a lock (R__11_wakeups.sql): after registering a queue
 * the thread reads the transactions writing its tables (aq.waiter_writers), before the
 * waiters' first look, and wakes the queue's waiters once those have ended (each tick).
 */
final class Wakeups implements Runnable {
    private static final Logger LOG = Logger.getLogger("pgaq.jms");
    /** How long one getNotifications blocks: the latest a new channel's LISTEN waits. */
    private static final int TICK_MS = 25;

    private final AQjmsConnection owner;
    private final WaitGroups groups = new WaitGroups();
    /** The channels waited on (LISTENed once, for the connection's life). */
    private final Set<String> wanted = new HashSet<>();
    private final Set<String> listening = new HashSet<>();
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

    WaitGroups groups() {
        return groups;
    }

    /**
     * A waiter of {@code channel} (of the {@code share} key's group, null: woken by every
     * NOTIFY; on {@code wake}, null: a condition of its own), once the channel's LISTEN is
     * in effect (so a NOTIFY after this returns is seen). Waits at most a tick or two for
     * the listening thread; if the database is unreachable, returns at once (the waiter's
     * safety looks find what comes).
     */
    Waiter join(String channel, Object share, java.util.concurrent.locks.Condition wake)
            throws InterruptedException {
        Waiter w = groups.join(channel, share, wake);
        try {
            listened(channel);
        } catch (InterruptedException | RuntimeException e) {
            groups.leave(w, false);
            throw e;
        }
        return w;
    }

    private synchronized void listened(String channel) throws InterruptedException {
        startIfNeeded();
        wanted.add(channel);
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (!closed && !listening.contains(channel) && !down) {
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                break;
            }
            wait(left);
        }
    }

    /** Every waiting thread re-checks its state (connection started or stopped, a consumer
     *  closing, a listener set); none looks for that. */
    void nudge() {
        groups.nudge();
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
            notifyAll();
            t = thread;
        }
        groups.close();
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
        groups.polling(true);
        try {
            loop();
        } finally {
            groups.polling(false);
            closeDb();
        }
    }

    private void loop() {
        long backoff = 50;
        long period = owner.factory().safetyPollMillis * 1_000_000L;
        long nextRound = System.nanoTime() + period;
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
                if (got != null) {
                    for (PGNotification n : got) {
                        groups.notified(n.getName());
                    }
                }
                followWriters();
                nextRound = safetyRound(nextRound, period);
            } catch (SQLException | RuntimeException e) {
                // a RuntimeException too: this thread must outlive whatever the driver throws
                lost(e instanceof SQLException ? (SQLException) e : new SQLException(e.toString(), "08006", e));
                // the safety looks go on while the database is away (the backoff reaches 5 s)
                long retryAt = System.nanoTime() + backoff * 1_000_000L;
                try {
                    synchronized (this) {
                        long left;
                        while (!closed && (left = retryAt - System.nanoTime()) > 0) {
                            wait(Math.max(1, Math.min(left, nextRound - System.nanoTime()) / 1_000_000L));
                            nextRound = safetyRound(nextRound, period);
                        }
                    }
                } catch (InterruptedException ie) {
                    break;
                }
                backoff = Math.min(backoff * 2, 5000);
            }
        }
    }

    /** The shared keys' safety looks once {@code nextRound} has come; when the next round is. */
    private long safetyRound(long nextRound, long period) {
        long now = System.nanoTime();
        if (now - nextRound < 0) {
            return nextRound;
        }
        groups.safetyRound();
        return now + period;
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
        following.keySet().removeAll(done);
        for (String ch : done) {
            groups.notified(ch);
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
            for (String ch : wanted) {
                if (!listening.contains(ch)) {
                    todo.add(ch);
                }
            }
        }
        if (todo.isEmpty()) {
            rewake();
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
            notifyAll();
        }
        rewake();
    }

    /** Reconnected and every channel LISTENed again: every waiter looks. */
    private void rewake() {
        boolean again;
        synchronized (this) {
            again = rewake;
            rewake = false;
        }
        if (again) {
            groups.wakeEvery();
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
            notifyAll();  // (joins wait no more; waiters look after the reconnect)
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
