package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.jms.DeliveryMode;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicSubscriber;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The provider's own behaviour against a pgaq database, expected results from JMS 1.1 and
 * Oracle Database Advanced Queuing User's Guide ("Introduction to Oracle Java Message
 * Service"); the conformance suite runs the portable ones on ActiveMQ too.
 */
class ProviderTest {
    private javax.jms.Connection connection;

    @BeforeEach
    void open() throws JMSException {
        connection = TestDb.factory().createConnection();
    }

    @AfterEach
    void close() throws JMSException {
        connection.close();
    }

    private Queue queue(Session s, String qualified) throws JMSException {
        int dot = qualified.indexOf('.');
        return ((AQjmsSession) s).getQueue(qualified.substring(0, dot), qualified.substring(dot + 1));
    }

    private Topic topic(Session s, String qualified) throws JMSException {
        int dot = qualified.indexOf('.');
        return ((AQjmsSession) s).getTopic(qualified.substring(0, dot), qualified.substring(dot + 1));
    }

    @Test
    void aSentTextMessageIsReceivedWithItsHeadersAndProperties() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("basic"));
        MessageProducer p = s.createProducer(q);
        TextMessage m = s.createTextMessage("hello \uD83D\uDE00");
        m.setStringProperty("region", "EU");
        m.setIntProperty("n", 7);
        m.setJMSCorrelationID("c-1");
        m.setJMSType("greeting");
        p.send(m);
        assertNotNull(m.getJMSMessageID());
        assertTrue(m.getJMSMessageID().startsWith("ID:"));
        assertEquals(q, m.getJMSDestination());
        connection.start();
        TextMessage got = (TextMessage) s.createConsumer(q).receive(10_000);
        assertNotNull(got);
        assertEquals("hello \uD83D\uDE00", got.getText());
        assertEquals("EU", got.getStringProperty("region"));
        assertEquals(7, got.getIntProperty("n"));
        assertEquals("c-1", got.getJMSCorrelationID());
        assertEquals("greeting", got.getJMSType());
        assertEquals(m.getJMSMessageID(), got.getJMSMessageID());
        assertEquals(m.getJMSTimestamp(), got.getJMSTimestamp());
        assertEquals(DeliveryMode.PERSISTENT, got.getJMSDeliveryMode());
        assertFalse(got.getJMSRedelivered());
        assertEquals(1, got.getIntProperty("JMSXDeliveryCount"));
        assertNull(s.createConsumer(q).receiveNoWait());
    }

    @Test
    void aStoppedConnectionDeliversNothing() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("stopped"));
        s.createProducer(q).send(s.createTextMessage("x"));
        MessageConsumer c = s.createConsumer(q);
        assertNull(c.receiveNoWait(), "JMS 1.1 4.3.3: a stopped connection delivers nothing");
        assertNull(c.receive(200));
        connection.start();
        assertNotNull(c.receive(10_000));
    }

    @Test
    void aBlockingReceiveIsWokenBySendFromAnotherConnection() throws Exception {
        // a safety poll of a minute: only the enqueue's NOTIFY wakes the receive in time
        java.util.Properties slow = new java.util.Properties();
        slow.setProperty("pgaq.safetyPollMillis", "60000");
        connection.close();
        connection = TestDb.factory(slow).createConnection();
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("wake"));
        connection.start();
        MessageConsumer c = s.createConsumer(q);
        BlockingQueue<Message> got = new ArrayBlockingQueue<>(1);
        Thread t = new Thread(() -> {
            try {
                got.add(c.receive(30_000));
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        t.start();
        javax.jms.Connection other = TestDb.factory().createConnection();
        try {
            Session os = other.createSession(false, Session.AUTO_ACKNOWLEDGE);
            os.createProducer(queue(os, q.getQueueName())).send(os.createTextMessage("wake up"));
        } finally {
            other.close();
        }
        Message m = got.poll(20, TimeUnit.SECONDS);
        assertNotNull(m, "the NOTIFY did not wake the receive");
        assertEquals("wake up", ((TextMessage) m).getText());
    }

    @Test
    void aTransactedSessionSendsAndReceivesAtCommitAndRedeliversAtRollback() throws Exception {
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        Session auto = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(tx, TestDb.queue("tx"));
        connection.start();
        tx.createProducer(q).send(tx.createTextMessage("one"));
        MessageConsumer txc = tx.createConsumer(q);
        assertNull(txc.receive(200), "JMS 1.1 4.4.7: a transaction does not receive its own uncommitted send");
        assertNull(auto.createConsumer(q).receive(200), "nor does anyone else");
        tx.commit();
        Message m = txc.receive(10_000);
        assertNotNull(m);
        tx.rollback();
        Message again = txc.receive(10_000);
        assertNotNull(again);
        assertEquals(m.getJMSMessageID(), again.getJMSMessageID());
        assertTrue(again.getJMSRedelivered());
        assertEquals(2, again.getIntProperty("JMSXDeliveryCount"));
        tx.commit();
        assertNull(auto.createConsumer(q).receive(200));
    }

    @Test
    void clientAcknowledgeKeepsMessagesUntilAcknowledgedAndRecoverRedelivers() throws Exception {
        Session s = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("client"));
        MessageProducer p = s.createProducer(q);
        p.send(s.createTextMessage("a"));
        p.send(s.createTextMessage("b"));
        connection.start();
        MessageConsumer c = s.createConsumer(q);
        Message a = c.receive(10_000);
        assertEquals("a", ((TextMessage) a).getText());
        s.recover();
        Message a2 = c.receive(10_000);
        assertEquals("a", ((TextMessage) a2).getText());
        assertTrue(a2.getJMSRedelivered());
        Message b = c.receive(10_000);
        assertEquals("b", ((TextMessage) b).getText());
        a2.acknowledge();  // acknowledges both (JMS 1.1 section 4.5.2)
        s.recover();
        assertNull(c.receive(200));
    }

    @Test
    void aListenerThatThrowsGetsTheMessageAgain() throws Exception {
        java.util.Properties slow = new java.util.Properties();
        slow.setProperty("pgaq.safetyPollMillis", "60000");
        connection.close();
        connection = TestDb.factory(slow).createConnection();
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("listener"));
        BlockingQueue<Integer> counts = new ArrayBlockingQueue<>(10);
        s.createConsumer(q).setMessageListener(m -> {
            try {
                int n = m.getIntProperty("JMSXDeliveryCount");
                counts.add(n);
                if (n == 1) {
                    throw new IllegalStateException("the first delivery fails");
                }
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        connection.start();
        Session ps = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        ps.createProducer(q).send(ps.createTextMessage("x"));
        assertEquals(1, counts.poll(20, TimeUnit.SECONDS), "the NOTIFY did not wake the listener");
        assertEquals(2, counts.poll(20, TimeUnit.SECONDS));
    }

    @Test
    void nonPersistentMessagesGoToTheBufferedCompanionAndKeepTheirMode() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        String name = TestDb.queue("np");
        Queue q = queue(s, name);
        MessageProducer p = s.createProducer(q);
        p.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        p.send(s.createTextMessage("fast"));
        try (Connection c = TestDb.jdbc(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + name + "_t")) {
            rs.next();
            assertEquals(0, rs.getInt(1), "NON_PERSISTENT is not in the logged queue table");
        }
        connection.start();
        Message m = s.createConsumer(q).receive(10_000);
        assertNotNull(m);
        assertEquals(DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
    }

    @Test
    void selectorsAreCompiledByTheDatabase() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("sel"));
        MessageProducer p = s.createProducer(q);
        for (String region : new String[] {"EU", "US", "EU"}) {
            TextMessage m = s.createTextMessage(region);
            m.setStringProperty("region", region);
            p.send(m);
        }
        connection.start();
        MessageConsumer us = s.createConsumer(q, "region = 'US'");
        assertEquals("US", ((TextMessage) us.receive(10_000)).getText());
        assertNull(us.receive(200));
        assertThrows(InvalidSelectorException.class, () -> s.createConsumer(q, "region = = 'x'"));
    }

    @Test
    void aDurableSubscriberKeepsWhatIsPublishedWhileItIsAway() throws Exception {
        connection.setClientID("durable-test");
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic t = topic(s, TestDb.topic("dur"));
        TopicSubscriber sub = s.createDurableSubscriber(t, "keeper");
        sub.close();
        s.createProducer(t).send(s.createTextMessage("while away"));
        connection.start();
        TopicSubscriber back = s.createDurableSubscriber(t, "keeper");
        assertEquals("while away", ((TextMessage) back.receive(10_000)).getText());
        back.close();
        s.unsubscribe("keeper");
    }

    @Test
    void aNonDurableSubscriberSeesWhatIsPublishedOnceItExists() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic t = topic(s, TestDb.topic("nondur"));
        // a topic with no subscriber at all refuses a publication (ORA-24033, AQ's rule for a
        // multi-consumer queue): a durable subscriber is there throughout
        s.createDurableSubscriber(t, "always").close();
        MessageProducer p = s.createProducer(t);
        p.send(s.createTextMessage("before"));
        MessageConsumer sub = s.createConsumer(t);
        p.send(s.createTextMessage("after"));
        connection.start();
        assertEquals("after", ((TextMessage) sub.receive(10_000)).getText());
        assertNull(sub.receive(200));
    }

    @Test
    void aBrowserShowsAndLeavesTheMessages() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("browse"));
        MessageProducer p = s.createProducer(q);
        for (int i = 0; i < 3; i++) {
            p.send(s.createTextMessage("m" + i));
        }
        QueueBrowser b = s.createBrowser(q);
        List<String> seen = new ArrayList<>();
        for (Enumeration<?> e = b.getEnumeration(); e.hasMoreElements();) {
            seen.add(((TextMessage) e.nextElement()).getText());
        }
        assertEquals(java.util.Arrays.asList("m0", "m1", "m2"), seen);
        connection.start();
        assertNotNull(s.createConsumer(q).receive(10_000));
        int left = 0;
        for (Enumeration<?> e = s.createBrowser(q).getEnumeration(); e.hasMoreElements(); e.nextElement()) {
            left++;
        }
        assertEquals(2, left);
    }

    @Test
    void aTemporaryQueueCarriesAReply() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(s, TestDb.queue("req"));
        javax.jms.TemporaryQueue reply = s.createTemporaryQueue();
        TextMessage req = s.createTextMessage("ping");
        req.setJMSReplyTo(reply);
        s.createProducer(q).send(req);
        connection.start();
        Message got = s.createConsumer(q).receive(10_000);
        assertTrue(got.getJMSReplyTo() instanceof javax.jms.TemporaryQueue);
        s.createProducer(got.getJMSReplyTo()).send(s.createTextMessage("pong"));
        MessageConsumer rc = s.createConsumer(reply);
        assertEquals("pong", ((TextMessage) rc.receive(10_000)).getText());
        rc.close();
        reply.delete();
    }

    @Test
    void oraclesAdministrativeExtensionsMakeAQueue() throws Exception {
        AQjmsSession s = (AQjmsSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try (Connection c = TestDb.jdbc(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA IF NOT EXISTS " + TestDb.SCHEMA);
        }
        String name = TestDb.unique("adm");
        AQQueueTableProperty tp = new AQQueueTableProperty("SYS.AQ$_JMS_TEXT_MESSAGE");
        AQQueueTable table = s.createQueueTable(TestDb.SCHEMA, name + "_t", tp);
        AQjmsDestinationProperty dp = new AQjmsDestinationProperty();
        dp.setMaxRetries(3);
        Queue q = s.createQueue(table, name, dp);
        ((AQjmsDestination) q).start(s, true, true);
        s.createProducer(q).send(s.createTextMessage("made by Java"));
        connection.start();
        assertEquals("made by Java", ((TextMessage) s.createConsumer(q).receive(10_000)).getText());
        assertEquals(table.getName(), s.getQueueTable(TestDb.SCHEMA, name + "_t").getName());
    }

    @Test
    void namesThatAreNotIdentifiersAreQuotedAndRoundTrip() throws Exception {
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        String table = TestDb.unique("odd");
        try (Connection c = TestDb.jdbc()) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE SCHEMA IF NOT EXISTS " + TestDb.SCHEMA);
            }
            TestDb.call(c, "CALL dbms_aqadm.create_queue_table(queue_table => ?, queue_payload_type => ?)",
                    TestDb.SCHEMA + "." + table, "SYS.AQ$_JMS_MESSAGE");
            for (String q : new String[] {"\"Mixed-Case\"", "\"a.b.c\""}) {
                TestDb.call(c, "CALL dbms_aqadm.create_queue(queue_name => ?, queue_table => ?)",
                        TestDb.SCHEMA + "." + q, TestDb.SCHEMA + "." + table);
                TestDb.call(c, "CALL dbms_aqadm.start_queue(queue_name => ?)", TestDb.SCHEMA + "." + q);
            }
        }
        Queue mixed = s.createQueue(TestDb.SCHEMA + ".\"Mixed-Case\"");
        assertEquals(TestDb.SCHEMA + ".\"Mixed-Case\"", mixed.getQueueName());
        assertEquals(mixed, s.createQueue(mixed.getQueueName()));
        Queue dotted = s.createQueue(TestDb.SCHEMA + ".\"a.b.c\"");
        TextMessage m = s.createTextMessage("odd");
        m.setJMSReplyTo(mixed);
        s.createProducer(dotted).send(m);
        connection.start();
        Message got = s.createConsumer(dotted).receive(10_000);
        assertEquals("odd", ((TextMessage) got).getText());
        assertEquals(mixed, got.getJMSReplyTo(), "a reply-to address names the same queue back");
        assertThrows(javax.jms.InvalidDestinationException.class, () -> s.createQueue("no-such-queue"));
    }

    @Test
    void aConsumerOfAGroupedQueueGoesOnFromGroupToGroup() throws Exception {
        String name = TestDb.unique("grouped");
        try (Connection c = TestDb.jdbc()) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE SCHEMA IF NOT EXISTS " + TestDb.SCHEMA);
            }
            TestDb.call(c, "CALL dbms_aqadm.create_queue_table(queue_table => ?, queue_payload_type => ?, "
                    + "message_grouping => 'TRANSACTIONAL')", TestDb.SCHEMA + "." + name + "_t", "SYS.AQ$_JMS_MESSAGE");
            TestDb.call(c, "CALL dbms_aqadm.create_queue(queue_name => ?, queue_table => ?)",
                    TestDb.SCHEMA + "." + name, TestDb.SCHEMA + "." + name + "_t");
            TestDb.call(c, "CALL dbms_aqadm.start_queue(queue_name => ?)", TestDb.SCHEMA + "." + name);
        }
        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(tx, TestDb.SCHEMA + "." + name);
        MessageProducer p = tx.createProducer(q);
        for (String[] group : new String[][] {{"a1", "a2"}, {"b1"}, {"c1", "c2"}}) {
            for (String t : group) {
                p.send(tx.createTextMessage(t));
            }
            tx.commit();
        }
        connection.start();
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer c = s.createConsumer(q);
        List<String> got = new ArrayList<>();
        for (Message m; (m = c.receiveNoWait()) != null;) {
            got.add(((TextMessage) m).getText());
        }
        assertEquals(java.util.Arrays.asList("a1", "a2", "b1", "c1", "c2"), got);

        Queue plain = queue(s, TestDb.queue("ungrouped"));
        AQjmsConsumer nav = (AQjmsConsumer) s.createConsumer(plain);
        nav.setNavigationMode(AQjmsConsumer.NAVIGATION_NEXT_TRANSACTION);
        JMSException e = assertThrows(JMSException.class, nav::receiveNoWait);
        assertTrue(e.getMessage().contains("ORA-25237"), e.getMessage());
    }

    @Test
    void aTopicBrowserPurgesWhatItShowedOfBothDeliveryModes() throws Exception {
        AQjmsSession s = (AQjmsSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic t = topic(s, TestDb.topic("purge"));
        s.createDurableSubscriber(t, "KEEPER").close();
        MessageProducer p = s.createProducer(t);
        p.send(s.createTextMessage("persistent"));
        p.send(s.createTextMessage("buffered"), DeliveryMode.NON_PERSISTENT, 1, 0);
        p.send(s.createTextMessage("not seen"), DeliveryMode.NON_PERSISTENT, 1, 0);
        AQjmsQueueBrowser b = s.createBrowser(t, "KEEPER", null);
        Enumeration<?> e = b.getEnumeration();
        List<String> seen = new ArrayList<>();
        seen.add(((TextMessage) e.nextElement()).getText());
        seen.add(((TextMessage) e.nextElement()).getText());
        b.purgeSeen();  // not transacted: at once
        List<String> left = new ArrayList<>();
        for (Enumeration<?> again = s.createBrowser(t, "KEEPER", null).getEnumeration(); again.hasMoreElements();) {
            left.add(((TextMessage) again.nextElement()).getText());
        }
        assertEquals(java.util.Arrays.asList("persistent", "buffered"), seen, "persistent ones first");
        assertEquals(java.util.Collections.singletonList("not seen"), left);
    }
}
