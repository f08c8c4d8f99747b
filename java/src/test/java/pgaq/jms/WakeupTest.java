package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Many consumers waiting on one queue (issue 35): a committed message wakes as many of a
 * connection's waiters as can take it, not all of them (WaitGroups), a missed NOTIFY is
 * found by one safety look per period, not one per waiter, and every message is still
 * delivered once.
 *
 * Who looked is read from pg_stat_activity: each JMS session has a backend of its own, and
 * a look runs statements on it, so a backend whose query_start moved has looked. The
 * waiting connection's backends are told apart by their application_name (the JDBC URL's
 * ApplicationName). pg_stat_activity is read from shared memory as each statement starts,
 * so it is exact the moment the looks are done; the cumulative statistics
 * (pg_stat_database, pg_stat_user_tables) reach readers only when a backend flushes them,
 * up to seconds later, and pg_stat_statements is not installed by default. Looks are done
 * when every waiter is back in its wait with no wake-up pending (WaitGroups.idle).
 */
class WakeupTest {
    private static final int N = 32;
    private static final long WAIT_MS = 30_000;
    private final List<javax.jms.Connection> connections = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private Connection admin;
    private String app;

    @BeforeEach
    void open() throws SQLException {
        admin = TestDb.jdbc();
        app = TestDb.unique("wake");
    }

    @AfterEach
    void close() throws Exception {
        for (javax.jms.Connection c : connections) {
            c.close();
        }
        for (Thread t : threads) {
            t.join(WAIT_MS);
        }
        admin.close();
    }

    /** A connection whose backends are named {@code app}, safety looks every {@code pollMs}. */
    private AQjmsConnection waiting(long pollMs) throws JMSException {
        String url = TestDb.url();
        url += (url.contains("?") ? "&" : "?") + "ApplicationName=" + app;
        Properties p = new Properties();
        p.setProperty("pgaq.safetyPollMillis", Long.toString(pollMs));
        AQjmsConnection c = (AQjmsConnection) AQjmsFactory.getConnectionFactory(url, p).createConnection();
        connections.add(c);
        return c;
    }

    private static Queue queue(Session s, String qualified) throws JMSException {
        return ((AQjmsSession) s).getQueue(TestDb.SCHEMA, TestDb.name(qualified));
    }

    /** Each backend of the waiting connection and when its last statement began. */
    private Map<Integer, Object> activity() throws SQLException {
        Map<Integer, Object> out = new HashMap<>();
        try (PreparedStatement st = admin.prepareStatement(
                "SELECT pid, query_start FROM pg_stat_activity WHERE application_name = ?")) {
            st.setString(1, app);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getInt(1), rs.getTimestamp(2));
                }
            }
        }
        return out;
    }

    /** How many backends ran a statement since {@code before}. */
    private int looked(Map<Integer, Object> before) throws SQLException {
        int n = 0;
        for (Map.Entry<Integer, Object> e : activity().entrySet()) {
            Object was = before.get(e.getKey());
            n += was == null || !was.equals(e.getValue()) ? 1 : 0;
        }
        return n;
    }

    private static void until(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_MS * 1_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(2);
        }
    }

    /** Every waiter of {@code c} in its wait, none with a wake-up pending: {@code n} of them. */
    private static void quiet(AQjmsConnection c, int n) throws InterruptedException {
        WaitGroups g = c.wakeups().groups();
        until(n + " waiters idle", () -> g.waiters() == n && g.idle() == n);
    }

    /** {@code n} threads each receiving one message on a session of its own into {@code got}. */
    private List<MessageConsumer> receivers(AQjmsConnection c, String name, int n, BlockingQueue<String> got)
            throws JMSException {
        List<MessageConsumer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer r = s.createConsumer(queue(s, name));
            out.add(r);
            Thread t = new Thread(() -> {
                try {
                    Message m = r.receive(WAIT_MS);
                    if (m != null) {
                        got.add(((TextMessage) m).getText());
                    }
                } catch (JMSException e) {
                    got.add("failed: " + e);
                }
            }, "receiver-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        return out;
    }

    /** Each text a message of its own transaction (so its own NOTIFY). */
    private static void send(String name, String... texts) throws JMSException {
        javax.jms.Connection c = TestDb.factory().createConnection();
        try {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer p = s.createProducer(queue(s, name));
            for (String t : texts) {
                p.send(s.createTextMessage(t));
            }
        } finally {
            c.close();
        }
    }

    @Test
    void oneMessageWakesOneOfManyReceives() throws Exception {
        String name = TestDb.queue("herd_rx");
        AQjmsConnection c = waiting(60_000);  // only a NOTIFY wakes in time
        c.start();
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        receivers(c, name, N, got);
        quiet(c, N);
        Map<Integer, Object> before = activity();
        send(name, "one");
        assertEquals("one", got.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        quiet(c, N - 1);
        // the receive that took it, and the next it passed the wake-up to (there may be
        // more: a transaction notifies once), which found nothing
        int n = looked(before);
        assertTrue(n >= 1 && n <= 2, n + " of " + N + " waiting receives looked for one message");
    }

    @Test
    void oneMessageWakesOneOfManyListeners() throws Exception {
        String name = TestDb.queue("herd_ls");
        AQjmsConnection c = waiting(60_000);
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        for (int i = 0; i < N; i++) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createConsumer(queue(s, name)).setMessageListener(m -> {
                try {
                    got.add(((TextMessage) m).getText());
                } catch (JMSException e) {
                    got.add("failed: " + e);
                }
            });
        }
        c.start();
        quiet(c, N);
        Map<Integer, Object> before = activity();
        send(name, "one");
        assertEquals("one", got.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        quiet(c, N);
        // the listener that took it (and looked again after it), the next one it passed the
        // wake-up to
        int n = looked(before);
        assertTrue(n >= 1 && n <= 2, n + " of " + N + " waiting listeners looked for one message");
    }

    @Test
    void aMissedNotifyIsFoundByOneSafetyLookPerPeriod() throws Exception {
        String name = TestDb.queue("herd_safe");
        long poll = 200;
        AQjmsConnection c = waiting(poll);
        c.start();
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        receivers(c, name, N, got);
        quiet(c, N);
        // the queue's waiter registration gone (as the monitor's pass takes a dead one's):
        // enqueues notify nobody, only the safety looks find their messages
        try (PreparedStatement st = admin.prepareStatement(
                "DELETE FROM aq.waiters WHERE queue_id = (aq.resolve_queue(?)).queue_id")) {
            st.setString(1, name);
            assertTrue(st.executeUpdate() >= 1, "the queue had a registered waiter");
        }
        WaitGroups g = c.wakeups().groups();
        quiet(c, N);
        Map<Integer, Object> before = activity();
        long r0 = g.rounds();
        until("five safety rounds", () -> g.rounds() >= r0 + 5);
        quiet(c, N);
        int idleLooks = looked(before);
        // one waiter a period, the most recently idle: the same one each time (at most one a
        // period in any case), where a timer per waiter made all of them look each period
        assertTrue(idleLooks >= 1 && idleLooks <= 2, idleLooks + " of " + N
                + " waiting receives looked in five safety periods with nothing to find");
        long t0 = System.nanoTime();
        send(name, "missed");
        assertEquals("missed", got.poll(WAIT_MS, TimeUnit.MILLISECONDS));
        long tookMs = (System.nanoTime() - t0) / 1_000_000L;
        assertTrue(tookMs < 10 * poll, "a message without a NOTIFY took " + tookMs + " ms to be found");
    }

    @Test
    void aClosedConsumerPassesItsWakeupOn() throws Exception {
        String name = TestDb.queue("herd_close");
        AQjmsConnection c = waiting(60_000);
        c.start();
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        List<MessageConsumer> rs = receivers(c, name, N, got);
        quiet(c, N);
        // messages committed while half of the receives close, the most recently idle ones
        // (those a NOTIFY wakes first): whichever of them a wake-up went to, every message is
        // taken by one that stays, long before the safety look. (Which interleaving comes is
        // the scheduler's: WaitGroupsTest holds a wake-up on a leaving waiter for certain.)
        int closing = N / 2;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> closers = new ArrayList<>();
        for (int i = 0; i < closing; i++) {
            MessageConsumer r = rs.get(N - 1 - i);  // the most recently idle first
            Thread t = new Thread(() -> {
                try {
                    go.await();
                    r.close();
                } catch (Exception e) {
                    got.add("failed: " + e);
                }
            });
            t.start();
            closers.add(t);
        }
        go.countDown();
        String[] texts = new String[closing];
        for (int i = 0; i < closing; i++) {
            texts[i] = "m" + i;
        }
        send(name, texts);
        List<String> received = new ArrayList<>();
        for (int i = 0; i < closing; i++) {
            String m = got.poll(10_000, TimeUnit.MILLISECONDS);
            assertNotNull(m, "message " + i + " of " + closing + " not taken in 10 s (safety look: 60 s)");
            received.add(m);
        }
        for (Thread t : closers) {
            t.join(WAIT_MS);
        }
        received.sort(null);
        List<String> want = new ArrayList<>(java.util.Arrays.asList(texts));
        want.sort(null);
        assertEquals(want, received);
    }

    @Test
    void everyMessageOnceUnderConcurrentConsumers() throws Exception {
        String name = TestDb.queue("herd_once");
        AQjmsConnection c = waiting(60_000);
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        int total = 400;
        CountDownLatch all = new CountDownLatch(total);
        for (int i = 0; i < N / 2; i++) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createConsumer(queue(s, name)).setMessageListener(m -> {
                try {
                    seen.computeIfAbsent(((TextMessage) m).getText(), k -> new AtomicInteger()).incrementAndGet();
                } catch (JMSException e) {
                    throw new RuntimeException(e);
                }
                all.countDown();
            });
        }
        c.start();
        // and as many threads receiving until all are taken
        for (int i = 0; i < N / 2; i++) {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer r = s.createConsumer(queue(s, name));
            Thread t = new Thread(() -> {
                try {
                    while (all.getCount() > 0) {
                        Message m = r.receive(200);
                        if (m != null) {
                            seen.computeIfAbsent(((TextMessage) m).getText(), k -> new AtomicInteger())
                                    .incrementAndGet();
                            all.countDown();
                        }
                    }
                } catch (JMSException e) {
                    // closed at the end
                }
            });
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
        quiet(c, N);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            int from = p * total / 2;
            Thread t = new Thread(() -> {
                String[] texts = new String[total / 2];
                for (int k = 0; k < texts.length; k++) {
                    texts[k] = "m" + (from + k);
                }
                try {
                    send(name, texts);
                } catch (JMSException e) {
                    throw new RuntimeException(e);
                }
            });
            t.start();
            producers.add(t);
        }
        for (Thread t : producers) {
            t.join();
        }
        assertTrue(all.await(WAIT_MS, TimeUnit.MILLISECONDS), all.getCount() + " of " + total + " not taken");
        assertEquals(total, seen.size());
        for (Map.Entry<String, AtomicInteger> e : seen.entrySet()) {
            assertEquals(1, e.getValue().get(), e.getKey() + " delivered more than once");
        }
    }
}
