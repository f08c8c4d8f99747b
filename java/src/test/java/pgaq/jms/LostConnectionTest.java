package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.TransactionRolledBackException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every database connection of a JMS connection cut at once and new ones refused for a while,
 * as a Patroni failover behind HAProxy does (issue 34), through a TCP proxy (LinkProxy). As
 * JMS 1.1 wants: the ExceptionListener is told; message listeners and blocking receives go
 * on with no help from the application; a transacted session's commit throws
 * TransactionRolledBackException, also when a later call of the session found the loss
 * first and went on on a new connection; what the lost transactions took comes again,
 * JMSRedelivered.
 */
class LostConnectionTest {
    private LinkProxy link;
    private javax.jms.Connection connection;
    private javax.jms.Connection direct;  // the far side, not cut
    private final BlockingQueue<JMSException> reported = new ArrayBlockingQueue<>(100);

    @BeforeEach
    void open() throws Exception {
        link = new LinkProxy(LinkProxy.portOf(TestDb.url()));
        Properties slow = new Properties();
        slow.setProperty("pgaq.safetyPollMillis", "60000");  // only a NOTIFY wakes in time
        connection = AQjmsFactory.getConnectionFactory(link.through(TestDb.url()), slow).createConnection();
        connection.setExceptionListener(reported::add);
        direct = TestDb.factory().createConnection();
    }

    @AfterEach
    void close() throws Exception {
        connection.close();
        direct.close();
        link.close();
    }

    private static Queue queue(Session s, String qualified) throws JMSException {
        return ((AQjmsSession) s).getQueue(qualified.substring(0, qualified.indexOf('.')), TestDb.name(qualified));
    }

    private void send(String qualified, String text) throws JMSException {
        Session s = direct.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try {
            s.createProducer(queue(s, qualified)).send(s.createTextMessage(text));
        } finally {
            s.close();
        }
    }

    private static int count(String qualified) throws Exception {
        try (Connection c = TestDb.jdbc();
             PreparedStatement st = c.prepareStatement("SELECT count(*) FROM " + qualified + "_t");
             ResultSet rs = st.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Until a live backend waits on the queue (a LISTEN connection registered for it):
     *  asked every 5 ms on one connection (a connection per question cost a backend's
     *  start each time). */
    private static void untilWaitedOn(String qualified) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Connection c = TestDb.jdbc(); PreparedStatement st = c.prepareStatement(
                "SELECT EXISTS (SELECT 1 FROM aq.waiters w JOIN aq.queue_info q ON q.queue_id = w.queue_id"
                + " JOIN pg_stat_activity a ON a.pid = w.pid WHERE q.schema_name || '.' || q.queue_name = ?)")) {
            st.setString(1, qualified);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    if (rs.getBoolean(1)) {
                        return;
                    }
                }
                Thread.sleep(5);
            }
        }
        throw new AssertionError("nobody waits on " + qualified);
    }

    @Test
    void listenersReceivesAndTransactionsAfterEveryConnectionIsCut() throws Exception {
        String listened = TestDb.queue("cut_listened");
        String received = TestDb.queue("cut_received");
        String tx = TestDb.queue("cut_tx");
        String acked = TestDb.queue("cut_acked");
        send(listened, "before");
        send(tx, "before");
        send(acked, "before");
        BlockingQueue<String> got = new ArrayBlockingQueue<>(10);
        Session ls = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        ls.createConsumer(queue(ls, listened)).setMessageListener(m -> {
            try {
                got.add(((TextMessage) m).getText());
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        Session rs = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer receiver = rs.createConsumer(queue(rs, received));
        Session ts = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer txConsumer = ts.createConsumer(queue(ts, tx));
        Session cs = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer ackConsumer = cs.createConsumer(queue(cs, acked));
        connection.start();
        assertEquals("before", got.poll(20, TimeUnit.SECONDS));
        Message taken = txConsumer.receive(10_000);
        Message unacked = ackConsumer.receive(10_000);
        assertNotNull(taken);
        assertNotNull(unacked);
        CompletableFuture<Message> blocked = CompletableFuture.supplyAsync(() -> {
            try {
                return receiver.receive(60_000);
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        untilWaitedOn(received);

        link.down();
        assertNotNull(reported.poll(20, TimeUnit.SECONDS), "the ExceptionListener is told");
        link.up();
        assertThrows(TransactionRolledBackException.class, ts::commit);
        assertThrows(JMSException.class, unacked::acknowledge);
        send(listened, "after");
        send(received, "after");
        assertEquals("after", got.poll(20, TimeUnit.SECONDS), "the listener goes on");
        Message woken = blocked.get(20, TimeUnit.SECONDS);
        assertNotNull(woken, "the blocking receive goes on");
        assertEquals("after", ((TextMessage) woken).getText());
        Message again = txConsumer.receive(10_000);
        assertNotNull(again);
        assertEquals(taken.getJMSMessageID(), again.getJMSMessageID());
        assertTrue(again.getJMSRedelivered(), "a lost transaction's message comes again, redelivered");
        ts.commit();
        again = ackConsumer.receive(10_000);
        assertNotNull(again);
        assertEquals(unacked.getJMSMessageID(), again.getJMSMessageID());
        assertTrue(again.getJMSRedelivered(), "an unacknowledged message comes again, redelivered");
        again.acknowledge();
        assertEquals(0, count(tx));
        assertEquals(0, count(acked));
        assertTrue(reported.isEmpty(), "one outage, told once: " + reported);
    }

    @Test
    void aCommitAfterTheLossWasFoundElsewhereStillThrows() throws Exception {
        String q = TestDb.queue("cut_found");
        String other = TestDb.queue("cut_other");
        Session ts = connection.createSession(true, Session.SESSION_TRANSACTED);
        javax.jms.MessageProducer p = ts.createProducer(queue(ts, q));
        javax.jms.MessageProducer p2 = ts.createProducer(queue(ts, other));
        p.send(ts.createTextMessage("before the cut"));
        link.down();
        link.up();
        // the next call finds the connection gone (the server rolled the transaction back)
        JMSException e = assertThrows(JMSException.class, () -> p2.send(ts.createTextMessage("lost")));
        assertEquals("JMS-220", e.getErrorCode());
        p.send(ts.createTextMessage("after the cut"));  // on a new connection
        // one transaction: what it sent before the cut is gone, so it cannot commit
        assertThrows(TransactionRolledBackException.class, ts::commit);
        assertEquals(0, count(q), "nothing of the lost transaction is committed");
        assertEquals(0, count(other));
        p.send(ts.createTextMessage("next"));
        ts.commit();
        assertEquals(1, count(q));
    }
}
