package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * AUTO_ACKNOWLEDGE never loses a PERSISTENT message when the connection dies while a
 * receive is being settled (issue 34; JMS 1.1 section 4.4.13: the last message may come
 * again, never be lost). ReplyCutProxy cuts the session's connection after the server
 * committed (the answer lost, as in a failover after the synchronous standby acknowledged)
 * or drops the COMMIT itself: the message is returned by that receive, and comes again
 * (JMSRedelivered) only when the server did not commit.
 */
class AutoAckCutTest {
    private ReplyCutProxy proxy;
    private javax.jms.Connection connection;
    private String qualified;

    @BeforeEach
    void open() throws Exception {
        qualified = TestDb.queue("autoack");
        proxy = new ReplyCutProxy(LinkProxy.portOf(TestDb.url()));
        Properties slow = new Properties();
        slow.setProperty("pgaq.safetyPollMillis", "60000");
        String url = proxy.through(TestDb.url());
        connection = AQjmsFactory.getConnectionFactory(url + (url.contains("?") ? "&" : "?") + "sslmode=disable",
                slow).createConnection();
        connection.setExceptionListener(e -> { });
        javax.jms.Connection direct = TestDb.factory().createConnection();
        try {
            Session s = direct.createSession(false, Session.AUTO_ACKNOWLEDGE);
            for (String t : new String[] {"warm-up", "precious"}) {
                s.createProducer(queue(s)).send(s.createTextMessage(t));
            }
        } finally {
            direct.close();
        }
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        proxy.close();
    }

    private Queue queue(Session s) throws JMSException {
        return ((AQjmsSession) s).getQueue(qualified.substring(0, qualified.indexOf('.')), TestDb.name(qualified));
    }

    private int left() throws Exception {
        try (Connection c = TestDb.jdbc();
             PreparedStatement st = c.prepareStatement("SELECT count(*) FROM " + qualified + "_t");
             ResultSet rs = st.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Until no other backend of the database is in a transaction (the cut one ended its):
     *  asked every 5 ms on one connection (a connection per question cost a backend's start
     *  each time). */
    private static void cutBackendGone() throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        try (Connection c = TestDb.jdbc();
             PreparedStatement st = c.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                     + " AND xact_start IS NOT NULL")) {
            while (true) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) == 0) {
                        return;
                    }
                }
                assertTrue(System.nanoTime() < deadline, "the cut backend's transaction to end");
                Thread.sleep(5);
            }
        }
    }

    private List<Message> receiveAcrossCut(ReplyCutProxy.Cut cut) throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer c = s.createConsumer(queue(s));
        connection.start();
        assertEquals("warm-up", ((TextMessage) c.receiveNoWait()).getText());
        proxy.arm(cut, "precious");
        List<Message> seen = new ArrayList<>();
        Message m = c.receiveNoWait();
        assertNotNull(m, "the receive cut while settling returns its message");
        seen.add(m);
        assertTrue(proxy.fired());
        cutBackendGone();
        while ((m = c.receiveNoWait()) != null) {
            seen.add(m);
        }
        assertEquals(0, left());
        for (Message x : seen) {
            assertEquals("precious", ((TextMessage) x).getText());
            assertEquals(seen.get(0).getJMSMessageID(), x.getJMSMessageID());
        }
        assertFalse(seen.get(0).getJMSRedelivered());
        return seen;
    }

    @Test
    void aCommitWhoseAnswerIsLostReturnsTheMessageOnce() throws Exception {
        assertEquals(1, receiveAcrossCut(ReplyCutProxy.COMMITTED).size());
    }

    @Test
    void aCommitThatNeverArrivedReturnsItAndItComesAgainRedelivered() throws Exception {
        List<Message> seen = receiveAcrossCut(ReplyCutProxy.COMMIT_LOST);
        assertEquals(2, seen.size());
        assertTrue(seen.get(1).getJMSRedelivered());
    }
}
