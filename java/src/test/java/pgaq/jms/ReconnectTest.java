package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.TransactionRolledBackException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Database connections lost under a JMS connection (a backend terminated, as a restart or a
 * failover does): the connection's ExceptionListener hears of it, waits and listeners go on
 * woken by NOTIFY once the listening connection is back, a session's next call opens a new
 * database connection, and a transaction lost with its connection is reported as rolled
 * back (JMS 1.1 TransactionRolledBackException), its messages offered again.
 */
class ReconnectTest {
    private javax.jms.Connection connection;
    private final BlockingQueue<JMSException> reported = new ArrayBlockingQueue<>(100);

    @BeforeEach
    void open() throws JMSException {
        Properties slow = new Properties();
        slow.setProperty("pgaq.safetyPollMillis", "60000");  // only a NOTIFY wakes in time
        connection = TestDb.factory(slow).createConnection();
        connection.setExceptionListener(reported::add);
    }

    @AfterEach
    void close() throws JMSException {
        connection.close();
    }

    private static Queue queue(Session s, String qualified) throws JMSException {
        int dot = qualified.indexOf('.');
        return ((AQjmsSession) s).getQueue(qualified.substring(0, dot), qualified.substring(dot + 1));
    }

    /** Terminate the backends this query names; how many. */
    private static int terminate(String sql, Object arg) throws Exception {
        try (Connection c = TestDb.jdbc(); PreparedStatement st = c.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM (" + sql + ") x")) {
            st.setObject(1, arg);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void aListenerGoesOnAfterItsListeningConnectionIsLost() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        String name = TestDb.queue("relisten");
        Queue q = queue(s, name);
        BlockingQueue<String> got = new ArrayBlockingQueue<>(10);
        s.createConsumer(q).setMessageListener(m -> {
            try {
                got.add(((TextMessage) m).getText());
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        connection.start();
        Session ps = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer p = ps.createProducer(q);
        p.send(ps.createTextMessage("before"));
        assertEquals("before", got.poll(20, TimeUnit.SECONDS));
        // the listening connection is the queue's registered waiter
        int killed = terminate("SELECT w.pid FROM aq.waiters w JOIN aq.queue_info q ON q.queue_id = w.queue_id "
                + "WHERE q.schema_name || '.' || q.queue_name = ?", name);
        assertEquals(1, killed);
        JMSException lost = reported.poll(20, TimeUnit.SECONDS);
        assertNotNull(lost, "the ExceptionListener hears of the lost connection");
        p.send(ps.createTextMessage("after"));
        assertEquals("after", got.poll(20, TimeUnit.SECONDS), "woken by NOTIFY on the new listening connection");
    }

    @Test
    void aSessionOpensANewDatabaseConnectionAfterLosingItsOwn() throws Exception {
        AQjmsSession s = (AQjmsSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("reopen"));
        MessageProducer p = s.createProducer(q);
        p.send(s.createTextMessage("one"));
        int pid;
        try (PreparedStatement st = s.getDBConnection().prepareStatement("SELECT pg_backend_pid()");
             ResultSet rs = st.executeQuery()) {
            rs.next();
            pid = rs.getInt(1);
        }
        assertEquals(1, terminate("SELECT ?::integer AS pid", pid));
        JMSException e = assertThrows(JMSException.class, () -> p.send(s.createTextMessage("lost")));
        assertEquals("JMS-220", e.getErrorCode());
        p.send(s.createTextMessage("two"));  // a new database connection
        connection.start();
        javax.jms.MessageConsumer c = s.createConsumer(q);
        assertEquals("one", ((TextMessage) c.receive(10_000)).getText());
        assertEquals("two", ((TextMessage) c.receive(10_000)).getText());
    }

    @Test
    void aTransactionLostWithItsConnectionIsReportedRolledBack() throws Exception {
        AQjmsSession s = (AQjmsSession) connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(s, TestDb.queue("txlost"));
        s.createProducer(q).send(s.createTextMessage("kept"));
        s.commit();
        connection.start();
        Message m = s.createConsumer(q).receive(10_000);
        assertNotNull(m);
        int pid;
        try (PreparedStatement st = s.getDBConnection().prepareStatement("SELECT pg_backend_pid()");
             ResultSet rs = st.executeQuery()) {
            rs.next();
            pid = rs.getInt(1);
        }
        assertEquals(1, terminate("SELECT ?::integer AS pid", pid));
        assertThrows(TransactionRolledBackException.class, s::commit);
        Message again = s.createConsumer(q).receive(10_000);
        assertNotNull(again, "the rolled-back receive is offered again");
        assertEquals(m.getJMSMessageID(), again.getJMSMessageID());
        s.commit();
    }
}
