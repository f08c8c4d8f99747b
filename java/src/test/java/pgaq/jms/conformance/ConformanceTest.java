package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every conformance test class shares: connections closed after each test, the
 * provider's clean-up, a thread pool for receives that block, and small helpers. Tests use
 * javax.jms only, wait for what must arrive with {@link #WAIT} ms (receive(timeout), latches,
 * futures) and assert that nothing arrives with a short {@link #ABSENT} ms receive.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(EmbeddedBrokers.class)
abstract class ConformanceTest {
    /** How long to wait for something that must happen. */
    static final long WAIT = 10_000;
    /** How long a receive that must find nothing looks. */
    static final long ABSENT = 200;

    private final List<Connection> connections = new ArrayList<>();
    private final List<Provider> used = new ArrayList<>();
    private ExecutorService pool;

    @AfterEach
    void closeEverything() throws InterruptedException {
        // Connection.close must return (JMS 1.1 4.3.5); a provider whose close hangs fails the
        // test here instead of hanging the run
        List<Connection> open = new ArrayList<>(connections);
        connections.clear();
        Thread closer = new Thread(() -> {
            for (Connection c : open) {
                try {
                    c.close();
                } catch (JMSException | RuntimeException e) {
                    // closing is best effort here: the test's own assertions said what matters
                }
            }
        }, "conformance-close");
        closer.setDaemon(true);
        closer.start();
        closer.join(3 * WAIT);
        if (pool != null) {
            pool.shutdownNow();
            pool = null;
        }
        for (Provider p : used) {
            p.cleanUp();
        }
        used.clear();
        assertFalse(closer.isAlive(), "Connection.close() did not return within " + 3 * WAIT + " ms");
    }

    /** A new connection of the provider, stopped, closed after the test. */
    Connection connect(Provider p) throws JMSException {
        if (!used.contains(p)) {
            used.add(p);
        }
        Connection c = p.connectionFactory().createConnection();
        connections.add(c);
        return c;
    }

    /** Closes {@code c} after the test (a connection made some other way, e.g. a
     *  QueueConnection); the provider is cleaned up after the test too. */
    <C extends Connection> C track(Provider p, C c) {
        if (!used.contains(p)) {
            used.add(p);
        }
        connections.add(c);
        return c;
    }

    /** A new connection with a client identifier (set first, as JMS 1.1 4.3.2 asks). */
    Connection connect(Provider p, String clientId) throws JMSException {
        Connection c = connect(p);
        c.setClientID(clientId);
        return c;
    }

    /** A new connection, started. */
    Connection started(Provider p) throws JMSException {
        Connection c = connect(p);
        c.start();
        return c;
    }

    static Session autoAck(Connection c) throws JMSException {
        return c.createSession(false, Session.AUTO_ACKNOWLEDGE);
    }

    static Queue queue(Provider p, Session s, String prefix) throws JMSException {
        return p.queue(s, Provider.uniqueName(prefix));
    }

    static Topic topic(Provider p, Session s, String prefix) throws JMSException {
        return p.topic(s, Provider.uniqueName(prefix));
    }

    static String unique(String prefix) {
        return Provider.uniqueName(prefix);
    }

    /** Runs {@code task} on a thread of the test's pool (stopped after the test). */
    <T> Future<T> async(Callable<T> task) {
        if (pool == null) {
            pool = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "conformance-test");
                t.setDaemon(true);
                return t;
            });
        }
        return pool.submit(task);
    }

    /** The elements of an enumeration (JMS 1.1's are raw), as strings. */
    static List<String> strings(Enumeration<?> e) {
        List<String> list = new ArrayList<>();
        while (e.hasMoreElements()) {
            list.add(String.valueOf(e.nextElement()));
        }
        return list;
    }

    static String text(Message m) throws JMSException {
        assertNotNull(m, "expected a message, got none");
        assertTrue(m instanceof TextMessage, "expected a TextMessage, got " + m.getClass());
        return ((TextMessage) m).getText();
    }

    /** The text of the next message, which must come within WAIT ms. */
    static String receiveText(MessageConsumer c) throws JMSException {
        return text(c.receive(WAIT));
    }

    /** Texts of the messages receive(ABSENT) finds, until it finds none. */
    static List<String> drain(MessageConsumer c) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (Message m = c.receive(ABSENT); m != null; m = c.receive(ABSENT)) {
            texts.add(text(m));
        }
        return texts;
    }

    /** {@link #drain}, then closes the consumer (so that it holds back no message, as a
     *  provider that hands messages to its consumers ahead of receive may). */
    static List<String> drainAndClose(MessageConsumer c) throws JMSException {
        List<String> texts = drain(c);
        c.close();
        return texts;
    }

    /** Texts of the next n messages, each of which must come within WAIT ms. */
    static List<String> receiveTexts(MessageConsumer c, int n) throws JMSException {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            texts.add(receiveText(c));
        }
        return texts;
    }

    static void assertNothing(MessageConsumer c) throws JMSException {
        Message m = c.receive(ABSENT);
        assertEquals(null, m == null ? null : describe(m), "expected no message");
    }

    static String describe(Message m) {
        try {
            return m instanceof TextMessage ? "TextMessage '" + ((TextMessage) m).getText() + "'"
                    : m.getClass().getSimpleName() + " " + m.getJMSMessageID();
        } catch (JMSException e) {
            return String.valueOf(m);
        }
    }
}
