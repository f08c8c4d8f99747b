package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.jms.BytesMessage;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.ExceptionListener;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.QueueConnection;
import javax.jms.QueueSession;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicConnection;
import javax.jms.TopicSession;
import javax.jms.TopicSubscriber;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java of Oracle Database Advanced Queuing User's Guide, "Oracle Java Message Service
 * Basic Operations" chapter's general features, ported line for line where the guide gives
 * code ("JMS Streaming") and as the call sequences its sections list elsewhere, each test
 * asserting what the section says happens. The queues are made as the guide's
 * administrator would: with AQjmsSession's extensions or dbms_aqadm, in the login's schema,
 * where the guide's unqualified names ("queueName") resolve.
 */
class SeedExamplesTest {
    private static final String STREAMING = "oracle.jms.useJmsStreaming";
    private static final String THRESHOLD = "pgaq.jms.largeBodyThreshold";

    private javax.jms.Connection connection;
    private String schema;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        connection = TestDb.factory().createConnection();
        try (java.sql.Connection c = TestDb.jdbc(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (aq.qualify('x'))[1]")) {
            rs.next();
            schema = rs.getString(1);  // where dbms_aqadm puts, and JMS finds, an unqualified name
        }
    }

    @AfterEach
    void close() throws Exception {
        System.clearProperty(STREAMING);
        System.clearProperty(THRESHOLD);
        connection.close();
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    /** A started queue (or topic) of JMS messages in the login's schema, made with the
     *  session's Oracle extensions ("JMS Session": createQueueTable, createQueue). */
    private AQjmsDestination make(String name, boolean topic, AQjmsDestinationProperty p) throws JMSException {
        AQjmsSession admin = (AQjmsSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        try {
            AQQueueTableProperty tp = new AQQueueTableProperty("SYS.AQ$_JMS_MESSAGE");
            tp.setMultiConsumer(topic);
            AQQueueTable table = admin.createQueueTable(schema, name + "_qt", tp);
            AQjmsDestination d = (AQjmsDestination) (topic ? admin.createTopic(table, name, p)
                    : admin.createQueue(table, name, p));
            d.start(admin, true, true);
            return d;
        } finally {
            admin.close();
        }
    }

    private AQjmsQueue queue(String name, AQjmsDestinationProperty p) throws JMSException {
        return (AQjmsQueue) make(name, false, p);
    }

    private AQjmsTopic topic(String name, AQjmsDestinationProperty p) throws JMSException {
        return (AQjmsTopic) make(name, true, p);
    }

    /** pgaq's queue monitor, as its service runs it: aq.monitor_pass() every 200 ms. The
     *  guide's time manager ("It requires the Oracle Database Advanced Queuing background
     *  process queue monitor to be started"): it makes a message READY when its delay or
     *  retry delay is over and moves expired ones to their exception queue. */
    private static final class QueueMonitor implements AutoCloseable {
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        private final java.sql.Connection db;

        QueueMonitor() throws java.sql.SQLException {
            db = TestDb.jdbc();
            timer.scheduleWithFixedDelay(this::pass, 0, 200, TimeUnit.MILLISECONDS);
        }

        private void pass() {
            try (Statement st = db.createStatement()) {
                st.execute("SELECT * FROM aq.monitor_pass()");
            } catch (java.sql.SQLException e) {
                // the next pass tries again
            }
        }

        @Override
        public void close() throws java.sql.SQLException {
            timer.shutdownNow();
            try {
                timer.awaitTermination(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            db.close();
        }
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    // -- "JMS Streaming" ------------------------------------------------------------------------

    /** Oracle Database Advanced Queuing User's Guide, "JMS Streaming with Enqueue" and "JMS
     *  Streaming with Dequeue": a file sent with setInputStream, received in a
     *  CLIENT_ACKNOWLEDGE session and, its body above the 10 MB threshold and streaming on,
     *  written out with getBody; acknowledge() consumes it. */
    @Test
    void streamingWithEnqueueAndDequeue(@TempDir Path dir) throws Exception {
        queue("queueName", new AQjmsDestinationProperty());
        byte[] data = random(10 * 1024 * 1024 + 1);
        Files.write(dir.resolve("somefile.data"), data);
        System.setProperty(STREAMING, "true");  // "enable JMS Streaming by using the system property"

        // Oracle Database Advanced Queuing User's Guide, "JMS Streaming with Enqueue"
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Destination destination = session.createQueue("queueName");
        MessageProducer producer = session.createProducer(destination);

        AQjmsBytesMessage bytesMessage = (AQjmsBytesMessage) session.createBytesMessage();
        InputStream input = new FileInputStream(dir.resolve("somefile.data").toFile());
        bytesMessage.setInputStream(input);
        producer.send(bytesMessage);
        input.close();

        // Oracle Database Advanced Queuing User's Guide, "JMS Streaming with Dequeue"
        connection.start();
        destination = session.createQueue("queueName");
        AQjmsConsumer consumer = (AQjmsConsumer) session.createConsumer(destination);
        Message message = consumer.receive(10000);

        File received = dir.resolve("received.data").toFile();
        boolean large = false;
        // the guide's "(AQjmsBytesMessage)message.isLargeBody()" casts the boolean: the cast
        // belongs to the message
        if (message instanceof BytesMessage && ((AQjmsBytesMessage) message).isLargeBody()) {
            // optional : check the size of the payload and take appropriate action before
            // receiving the payload.
            assertEquals(data.length, ((AQjmsBytesMessage) message).getBodyLength());
            try (OutputStream out = new FileOutputStream(received)) {
                ((AQjmsBytesMessage) message).getBody(out);
            }
            large = true;
        } else {
            // normal dequeue
            fail("a body above 10 MB, streaming on, in a CLIENT_ACKNOWLEDGE session: isLargeBody");
        }
        assertTrue(large);
        assertArrayEquals(data, Files.readAllBytes(received.toPath()));
        // "all the messages including partially consumed messages are considered fully
        // consumed when: message.acknowledge() is called with CLIENT_ACKNOWLEDGE session"
        message.acknowledge();
        session.recover();
        assertNull(consumer.receiveNoWait());
    }

    /** "JMS Streaming with Enqueue", Note: setInputStream and write calls do not mix. */
    @Test
    void aStreamedBodyIsNotWrittenToAndAWrittenOneIsNotStreamed() throws Exception {
        Session session = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        InputStream input = new ByteArrayInputStream(new byte[] {1, 2, 3});
        AQjmsBytesMessage bytesMessage = (AQjmsBytesMessage) session.createBytesMessage();
        bytesMessage.setInputStream(input);
        assertThrows(javax.jms.IllegalStateException.class, () -> bytesMessage.writeInt(99));

        AQjmsBytesMessage other = (AQjmsBytesMessage) session.createBytesMessage();
        other.writeInt(99);
        assertThrows(javax.jms.IllegalStateException.class, () -> other.setInputStream(input));

        AQjmsStreamMessage stream = (AQjmsStreamMessage) session.createStreamMessage();
        stream.setInputStream(new ByteArrayInputStream(new byte[] {4}));
        assertThrows(javax.jms.IllegalStateException.class, () -> stream.writeInt(99));
        AQjmsStreamMessage written = (AQjmsStreamMessage) session.createStreamMessage();
        written.writeInt(99);
        assertThrows(javax.jms.IllegalStateException.class,
                () -> written.setInputStream(new ByteArrayInputStream(new byte[] {4})));
        bytesMessage.clearBody();  // a cleared body may be written again
        bytesMessage.writeInt(99);
    }

    /** "JMS Streaming" restrictions: streaming is off by default; on, dequeue streams a body
     *  above the threshold only for CLIENT_ACKNOWLEDGE and transacted sessions' receives of
     *  PERSISTENT messages ("not supported with message listener": a listener gets the
     *  message by the normal dequeue). AQjmsStreamMessage streams too, with its length. */
    @Test
    void dequeueStreamsOnlyWhereTheGuideSaysItDoes() throws Exception {
        System.setProperty(THRESHOLD, "1000");  // pgaq's threshold property, for small bodies
        AQjmsQueue q = queue("streamed", new AQjmsDestinationProperty());
        byte[] big = random(2500);
        Session producerSession = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageProducer producer = producerSession.createProducer(q);
        AQjmsBytesMessage m = (AQjmsBytesMessage) producerSession.createBytesMessage();
        m.setInputStream(new ByteArrayInputStream(big));
        connection.start();

        Session client = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageConsumer clientConsumer = client.createConsumer(q);
        producer.send(m);
        AQjmsBytesMessage got = (AQjmsBytesMessage) clientConsumer.receive(10_000);
        assertFalse(got.isLargeBody(), "streaming is disabled by default");
        System.setProperty(STREAMING, "true");
        assertTrue(got.isLargeBody());
        // getBody, chunkSize bytes at a time, with a timeout that never expires (0)
        List<Integer> writes = new ArrayList<>();
        ByteArrayOutputStream sink = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                writes.add(len);
                super.write(b, off, len);
            }
        };
        assertSame(sink, got.getBody(sink, 1000, 0L));
        assertEquals(Arrays.asList(1000, 1000, 500), writes);
        assertArrayEquals(big, sink.toByteArray());
        assertEquals(2500, got.getBodyLength());
        // the whole body: a normal read sees it too
        byte[] again = new byte[2500];
        assertEquals(2500, got.readBytes(again));
        assertArrayEquals(big, again);
        client.recover();  // not acknowledged: not consumed
        AQjmsBytesMessage redelivered = (AQjmsBytesMessage) clientConsumer.receive(10_000);
        assertTrue(redelivered.getJMSRedelivered());
        redelivered.acknowledge();

        Session auto = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        producer.send(m);
        assertFalse(((AQjmsBytesMessage) auto.createConsumer(q).receive(10_000)).isLargeBody(),
                "AUTO_ACKNOWLEDGE: the normal dequeue");

        Session tx = connection.createSession(true, Session.SESSION_TRANSACTED);
        MessageConsumer txConsumer = tx.createConsumer(q);
        producer.send(m);
        assertTrue(((AQjmsBytesMessage) txConsumer.receive(10_000)).isLargeBody());
        tx.commit();
        producer.send(m, DeliveryMode.NON_PERSISTENT, 1, 0);
        assertFalse(((AQjmsBytesMessage) txConsumer.receive(10_000)).isLargeBody(), "NON_PERSISTENT");
        tx.commit();

        Session listening = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        BlockingQueue<Boolean> large = new ArrayBlockingQueue<>(1);
        listening.createConsumer(q).setMessageListener(x -> {
            try {
                large.add(((AQjmsBytesMessage) x).isLargeBody());
                x.acknowledge();
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        producer.send(m);
        assertEquals(Boolean.FALSE, large.poll(30, TimeUnit.SECONDS), "a listener: the normal dequeue");
        listening.close();

        AQjmsStreamMessage sm = (AQjmsStreamMessage) producerSession.createStreamMessage();
        sm.setInputStream(new ByteArrayInputStream(big));
        producer.send(sm);
        AQjmsStreamMessage gotStream = (AQjmsStreamMessage) clientConsumer.receive(10_000);
        assertTrue(gotStream.isLargeBody());
        assertEquals(2500, gotStream.getBodyLength(), "AQ JMS will populate the length of the message body");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        gotStream.getBody(out, 2000L);
        assertArrayEquals(big, out.toByteArray());
        gotStream.acknowledge();
    }

    // -- "JMS Connection" -------------------------------------------------------------------------

    /** The database user of the JDBC URL (the examples' username). */
    private static String user() {
        String url = TestDb.url();
        int q = url.indexOf('?');
        for (String kv : q < 0 ? new String[0] : url.substring(q + 1).split("&")) {
            if (kv.startsWith("user=")) {
                return kv.substring(5);
            }
        }
        return System.getProperty("user.name");
    }

    /** Oracle Database Advanced Queuing User's Guide, "JMS Connection": a connection made with
     *  the user's name and password, created stopped ("no messages can be delivered to it",
     *  "A MessageProducer can send messages while a Connection is stopped"), start() and
     *  stop() for receives and listeners, transacted sessions by createSession(true, 0),
     *  createQueueSession(true, 0) and createTopicSession(true, 0), as many sessions as
     *  resources allow, the exception listener, close(). */
    @Test
    void jmsConnection() throws Exception {
        AQjmsQueue q = queue("conn_q", new AQjmsDestinationProperty());
        javax.jms.ConnectionFactory factory = TestDb.factory();
        javax.jms.Connection conn = factory.createConnection(user(), "");  // trusted local login
        try {
            ExceptionListener listener = e -> { };
            conn.setExceptionListener(listener);
            assertSame(listener, conn.getExceptionListener());

            Session s = conn.createSession(true, 0);
            assertTrue(s.getTransacted());
            assertEquals(Session.SESSION_TRANSACTED, s.getAcknowledgeMode());
            s.createProducer(q).send(s.createTextMessage("sent while stopped"));
            s.commit();
            MessageConsumer c = s.createConsumer(q);
            assertNull(c.receiveNoWait(), "a stopped connection delivers nothing");
            assertNull(c.receive(300));
            conn.start();
            assertEquals("sent while stopped", ((TextMessage) c.receive(10_000)).getText());
            s.commit();

            conn.stop();  // "synchronous receive's block and messages are not delivered to
            Session other = conn.createSession(true, 0);  //  message listener"
            other.createProducer(q).send(other.createTextMessage("while stopped again"));
            other.commit();
            assertNull(c.receive(300));
            Session listening = conn.createSession(false, Session.AUTO_ACKNOWLEDGE);
            CountDownLatch delivered = new CountDownLatch(1);
            c.close();
            MessageConsumer onListener = listening.createConsumer(q);
            onListener.setMessageListener(m -> delivered.countDown());
            assertFalse(delivered.await(500, TimeUnit.MILLISECONDS), "no listener delivery while stopped");
            conn.start();
            assertTrue(delivered.await(30, TimeUnit.SECONDS));
            onListener.close();  // the sends below stay in the queue for the browser to count

            // "you can create as many JMS Sessions as resources allow using a single JMS Connection"
            List<Session> many = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                many.add(conn.createSession(false, Session.AUTO_ACKNOWLEDGE));
            }
            for (Session each : many) {
                each.createProducer(q).send(each.createTextMessage("from one of many"));
            }
        } finally {
            conn.close();  // "closes the JMS session and releases all associated resources"
        }
        assertThrows(javax.jms.IllegalStateException.class, () -> conn.createSession(false, Session.AUTO_ACKNOWLEDGE));

        QueueConnection qc = ((javax.jms.QueueConnectionFactory) factory).createQueueConnection(user(), "");
        TopicConnection tc = ((javax.jms.TopicConnectionFactory) factory).createTopicConnection(user(), "");
        try {
            QueueSession qs = qc.createQueueSession(true, 0);
            TopicSession ts = tc.createTopicSession(true, 0);
            assertTrue(qs.getTransacted() && ts.getTransacted());
            qs.createSender(q).send(qs.createTextMessage("by a QueueSession"));
            qs.rollback();
            qc.start();
            int left = 0;
            for (Enumeration<?> e = qs.createBrowser(q).getEnumeration(); e.hasMoreElements(); e.nextElement()) {
                left++;
            }
            assertEquals(8, left, "the eight sends; the rolled-back one is not there");
        } finally {
            qc.close();
            tc.close();
        }
    }

    // -- "JMS Session" ---------------------------------------------------------------------------

    /** Oracle Database Advanced Queuing User's Guide, "JMS Session": Oracle's extensions
     *  (createQueueTable, getQueueTable, createQueue, getQueue, createTopic, getTopic; the
     *  session cast to AQjmsSession), getDBConnection's SQL in the session's transaction,
     *  commit and rollback of both, acknowledge() and recover() in a nontransactional
     *  session, close(). */
    @Test
    void jmsSession() throws Exception {
        Session plain = connection.createSession(true, 0);
        AQjmsSession session = (AQjmsSession) plain;  // "must be cast to AQjmsSession"
        AQQueueTable table = session.createQueueTable(schema, "orders_qt", new AQQueueTableProperty("SYS.AQ$_JMS_MESSAGE"));
        assertEquals(table.getName(), session.getQueueTable(schema, "orders_qt").getName());
        Queue created = session.createQueue(table, "orders", new AQjmsDestinationProperty());
        ((AQjmsDestination) created).start(session, true, true);
        Queue queue = session.getQueue(schema, "orders");
        assertEquals(created, queue);
        AQQueueTableProperty multi = new AQQueueTableProperty("SYS.AQ$_JMS_MESSAGE");
        multi.setMultiConsumer(true);
        AQQueueTable topics = session.createQueueTable(schema, "news_qt", multi);
        Topic news = session.createTopic(topics, "news", new AQjmsDestinationProperty());
        ((AQjmsDestination) news).start(session, true, true);
        assertEquals(news, session.getTopic(schema, "news"));

        // getDBConnection: "perform other SQL DML operations as part of the same Session"
        java.sql.Connection db = session.getDBConnection();
        try (Statement st = db.createStatement()) {
            st.execute("CREATE TABLE order_rows (id integer)");
        }
        session.commit();
        MessageProducer producer = session.createProducer(queue);
        try (Statement st = db.createStatement()) {
            st.execute("INSERT INTO order_rows VALUES (1)");
        }
        producer.send(session.createTextMessage("order 1"));
        session.rollback();  // "rolls back any messages accomplished in the transaction"
        try (Statement st = db.createStatement()) {
            st.execute("INSERT INTO order_rows VALUES (2)");
        }
        producer.send(session.createTextMessage("order 2"));
        session.commit();  // "commits all messages performed in the transaction"
        try (java.sql.Connection other = TestDb.jdbc(); Statement st = other.createStatement();
             ResultSet rs = st.executeQuery("SELECT array_agg(id ORDER BY id)::text FROM order_rows")) {
            rs.next();
            assertEquals("{2}", rs.getString(1), "the row went with the message");
        }
        connection.start();
        MessageConsumer consumer = session.createConsumer(queue);
        assertEquals("order 2", ((TextMessage) consumer.receive(10_000)).getText());
        assertNull(consumer.receive(300), "order 1 was rolled back");
        session.rollback();  // the receive undone: it comes again
        Message again = consumer.receive(10_000);
        assertEquals("order 2", ((TextMessage) again).getText());
        assertTrue(again.getJMSRedelivered());
        session.close();  // closing a transacted session rolls its transaction back

        // acknowledge() and recover() in a nontransactional (CLIENT_ACKNOWLEDGE) session
        AQjmsSession client = (AQjmsSession) connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        MessageProducer p = client.createProducer(queue);
        p.send(client.createTextMessage("a"));
        p.send(client.createTextMessage("b"));
        MessageConsumer c = client.createConsumer(queue);
        assertEquals("order 2", ((TextMessage) c.receive(10_000)).getText(), "close() rolled back");
        assertEquals("a", ((TextMessage) c.receive(10_000)).getText());
        client.acknowledge();  // "acknowledges message receipt in a nontransactional session"
        assertEquals("b", ((TextMessage) c.receive(10_000)).getText());
        client.recover();  // "reset to the point after the last acknowledged message"
        Message b = c.receive(10_000);
        assertEquals("b", ((TextMessage) b).getText());
        assertTrue(b.getJMSRedelivered());
        client.acknowledge();
        client.recover();
        assertNull(c.receive(300));
    }

    // -- "Message Navigation in Receive" ---------------------------------------------------------

    /** Oracle Database Advanced Queuing User's Guide, "Message Navigation in Receive":
     *  FIRST_MESSAGE "resets the position to the beginning of the queue. It is useful for
     *  priority ordered queues, because it allows the consumer to remove the message on the
     *  top of the queue". */
    @Test
    void firstMessageTakesTheTopOfAPriorityOrderedQueue() throws Exception {
        AQjmsSession admin = (AQjmsSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        AQQueueTableProperty tp = new AQQueueTableProperty("SYS.AQ$_JMS_MESSAGE");
        tp.setSortOrder("PRIORITY,ENQ_TIME");
        AQQueueTable table = admin.createQueueTable(schema, "prio_qt", tp);
        AQjmsDestination q = (AQjmsDestination) admin.createQueue(table, "prio", new AQjmsDestinationProperty());
        q.start(admin, true, true);
        MessageProducer p = admin.createProducer(q);
        p.send(admin.createTextMessage("late-5"), DeliveryMode.PERSISTENT, 5, 0);
        p.send(admin.createTextMessage("late-6"), DeliveryMode.PERSISTENT, 6, 0);
        Session s = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        AQjmsConsumer c = (AQjmsConsumer) s.createConsumer(q);
        c.setNavigationMode(AQjmsConsumer.NAVIGATION_FIRST_MESSAGE);
        connection.start();
        assertEquals("late-5", ((TextMessage) c.receiveNoWait()).getText());
        p.send(admin.createTextMessage("urgent-1"), DeliveryMode.PERSISTENT, 1, 0);  // 1 beats 5 (Oracle's order)
        assertEquals("urgent-1", ((TextMessage) c.receiveNoWait()).getText());
        assertEquals("late-6", ((TextMessage) c.receiveNoWait()).getText());
        ((AQjmsSession) s).acknowledge();
    }

    /** "Message Navigation in Receive", grouped messages: NEXT_MESSAGE "sets the position to
     *  the next message in the same transaction", NEXT_TRANSACTION "to the first message in the
     *  next transaction"; "If the consumer reaches the end of the queue while using the
     *  NEXT_MESSAGE or NEXT_TRANSACTION option, and you have specified a blocking receive(),
     *  then the navigating position is automatically changed to the beginning of the queue." */
    @Test
    void navigationOverTransactionGroups() throws Exception {
        AQjmsSession admin = (AQjmsSession) connection.createSession(true, 0);
        AQQueueTableProperty tp = new AQQueueTableProperty("SYS.AQ$_JMS_MESSAGE");
        tp.setMessageGrouping(AQQueueTableProperty.TRANSACTIONAL);
        AQQueueTable table = admin.createQueueTable(schema, "groups_qt", tp);
        AQjmsDestination q = (AQjmsDestination) admin.createQueue(table, "groups", new AQjmsDestinationProperty());
        q.start(admin, true, true);
        MessageProducer p = admin.createProducer(q);
        for (String[] group : new String[][] {{"a1", "a2", "a3"}, {"b1", "b2"}}) {
            for (String t : group) {
                p.send(admin.createTextMessage(t));
            }
            admin.commit();  // "all messages created in one transaction belong to the same group"
        }
        Session s = connection.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        AQjmsConsumer c = (AQjmsConsumer) s.createConsumer(q);
        connection.start();
        assertEquals(AQjmsConsumer.NAVIGATION_NEXT_MESSAGE, c.getNavigationMode());
        assertEquals("a1", ((TextMessage) c.receiveNoWait()).getText());
        c.setNavigationMode(AQjmsConsumer.NAVIGATION_NEXT_TRANSACTION);
        assertEquals("b1", ((TextMessage) c.receiveNoWait()).getText());
        c.setNavigationMode(AQjmsConsumer.NAVIGATION_NEXT_MESSAGE);
        assertEquals("b2", ((TextMessage) c.receiveNoWait()).getText());
        assertNull(c.receiveNoWait(), "the end of the queue, no wait: the position stays");
        assertEquals("a2", ((TextMessage) c.receive(10_000)).getText(), "a blocking receive goes back to the beginning");
        ((AQjmsSession) s).acknowledge();
    }

    // -- "Remove No Data" -----------------------------------------------------------------------

    /** Oracle Database Advanced Queuing User's Guide, "Remove No Data": receiveNoData removes a
     *  message already examined with a QueueBrowser, without retrieving it. */
    @Test
    void receiveNoDataRemovesABrowsedMessage() throws Exception {
        AQjmsQueue q = queue("nodata", new AQjmsDestinationProperty());
        Session s = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        s.createProducer(q).send(s.createTextMessage("looked at"));
        QueueBrowser browser = s.createBrowser(q);
        Enumeration<?> e = browser.getEnumeration();
        Message seen = (Message) e.nextElement();
        assertEquals("looked at", ((TextMessage) seen).getText());
        assertFalse(e.hasMoreElements());
        connection.start();
        AQjmsConsumer c = (AQjmsConsumer) s.createConsumer(q);
        assertEquals(seen.getJMSMessageID(), c.receiveNoData());
        assertNull(c.receiveNoData());
        assertFalse(s.createBrowser(q).getEnumeration().hasMoreElements(), "removed");
    }

    // -- "Retry with Delay Interval" -------------------------------------------------------------

    /** Oracle Database Advanced Queuing User's Guide, "Retry with Delay Interval": a failed
     *  receive is a failed attempt; the message "remains visible in the queue for dequeue
     *  after retry_delay interval. Until then it is in the WAITING state"; max_retries and
     *  retry_delay are set at creation or with alter; "The default value for MAX_RETRIES is
     *  5." */
    @Test
    void retryWithDelayInterval() throws Exception {
        AQjmsDestinationProperty p = new AQjmsDestinationProperty();
        assertEquals(5, p.getMaxRetries(), "The default value for MAX_RETRIES is 5");
        p.setRetryInterval(2);  // seconds
        AQjmsQueue q = queue("retry", p);
        QueueMonitor monitor = new QueueMonitor();  // "The ... time manager enforces the retry delay"
        toClose.add(monitor);
        Session s = connection.createSession(true, 0);
        s.createProducer(q).send(s.createTextMessage("try again"));
        s.commit();
        connection.start();
        MessageConsumer c = s.createConsumer(q);
        Message first = c.receive(10_000);
        assertEquals(1, first.getIntProperty("JMSXDeliveryCount"));
        long failed = System.nanoTime();
        s.rollback();  // "a transaction receiving a message from a queue/topic fails"
        assertNull(c.receiveNoWait(), "WAITING until the retry delay is over");
        Message second = c.receive(30_000);
        assertNotNull(second);
        assertTrue(System.nanoTime() - failed >= 1_900_000_000L, "visible after retry_delay");
        assertEquals(2, second.getIntProperty("JMSXDeliveryCount"));
        assertEquals(first.getJMSMessageID(), second.getJMSMessageID());
        s.commit();
        try (java.sql.Connection db = TestDb.jdbc(); Statement st = db.createStatement();
             ResultSet rs = st.executeQuery("SELECT max_retries, retry_delay FROM aq.queue_info "
                     + "WHERE queue_name = 'retry'")) {
            rs.next();
            assertEquals(5, rs.getInt(1));
            assertEquals(2, rs.getInt(2));
        }
        AQjmsDestinationProperty altered = new AQjmsDestinationProperty();
        altered.setMaxRetries(1);
        altered.setRetryInterval(0);
        q.alter(s, altered);  // "or by using the alter method on the queue/topic"
        try (java.sql.Connection db = TestDb.jdbc(); Statement st = db.createStatement();
             ResultSet rs = st.executeQuery("SELECT max_retries, retry_delay FROM aq.queue_info "
                     + "WHERE queue_name = 'retry'")) {
            rs.next();
            assertEquals(1, rs.getInt(1));
            assertEquals(0, rs.getInt(2));
        }
    }

    // -- "Exception Queues" ----------------------------------------------------------------------

    /** Oracle Database Advanced Queuing User's Guide, "Exception Queues": a message whose
     *  failed attempts exceed the queue's maximum goes to the default exception queue
     *  AQ$_queue_table_name_E, read point-to-point once started for dequeue; applications
     *  cannot enqueue there, nor enable it for enqueue; JMS_OracleExcpQ names another. */
    @Test
    void exceptionQueues() throws Exception {
        AQjmsDestinationProperty p = new AQjmsDestinationProperty();
        p.setMaxRetries(1);
        AQjmsQueue q = queue("excq", p);
        AQjmsSession s = (AQjmsSession) connection.createSession(true, 0);
        AQjmsDestinationProperty eqp = new AQjmsDestinationProperty();
        eqp.setQueueType(AQjmsDestinationProperty.EXCEPTION_QUEUE);
        AQjmsDestination mine = (AQjmsDestination) s.createQueue(s.getQueueTable(schema, "excq_qt"), "my_excq", eqp);
        mine.start(s, false, true);
        MessageProducer producer = s.createProducer(q);
        producer.send(s.createTextMessage("to the default"));
        TextMessage named = s.createTextMessage("to mine");
        named.setStringProperty("JMS_OracleExcpQ", mine.getCompleteName());
        producer.send(named);
        s.commit();
        connection.start();
        MessageConsumer c = s.createConsumer(q);
        for (int attempt = 1; attempt <= 2; attempt++) {  // max_retries 1: the second failure moves them
            assertNotNull(c.receive(10_000));
            assertNotNull(c.receive(10_000));
            s.rollback();
        }
        assertNull(c.receive(300), "both moved");

        AQjmsDestination dflt = (AQjmsDestination) s.getQueue(schema, "AQ$_excq_qt_E");
        // "You get an exception if you try to enable it for enqueue": pgaq's start_queue
        // enables an exception queue for dequeue only and says so (a NOTICE), no error
        dflt.start(s, true, true);
        assertEquals("to the default", ((TextMessage) s.createConsumer(dflt).receive(10_000)).getText());
        Message m = s.createConsumer(mine).receive(10_000);
        assertEquals("to mine", ((TextMessage) m).getText());
        s.commit();
        assertThrows(JMSException.class, () -> s.createProducer(dflt).send(s.createTextMessage("x")),
                "Applications cannot directly enqueue into exception queues");
    }

    /** "Exception Queues", for a topic: its exception queue is in the topic's
     *  multi-consumer queue table, read point-to-point; "If a message has multiple
     *  subscribers, then the message is moved to the exception queue only when all the
     *  recipients of the message have exceeded the retry limit." pgaq moves a message once
     *  every recipient is done with it, if one of them gave up: while another may still take
     *  it, it stays; but one that another subscriber did take is moved too. */
    @Test
    void aTopicsMessageGoesToTheExceptionQueueOnceEverySubscriberIsDone() throws Exception {
        AQjmsDestinationProperty p = new AQjmsDestinationProperty();
        p.setMaxRetries(1);
        AQjmsTopic t = topic("alerts", p);
        AQjmsSession s = (AQjmsSession) connection.createSession(true, 0);
        TopicSubscriber a = s.createDurableSubscriber(t, "SUB_A");
        TopicSubscriber b = s.createDurableSubscriber(t, "SUB_B");
        MessageProducer producer = s.createProducer(t);
        producer.send(s.createTextMessage("B takes it"));
        producer.send(s.createTextMessage("nobody takes it"));
        s.commit();
        connection.start();
        for (int attempt = 1; attempt <= 2; attempt++) {  // A fails both, twice: past max_retries 1
            assertNotNull(a.receive(10_000));
            assertNotNull(a.receive(10_000));
            s.rollback();
        }
        assertNull(a.receive(300));
        AQjmsDestination eq = (AQjmsDestination) s.getQueue(schema, "AQ$_alerts_qt_E");
        eq.start(s, false, true);
        MessageConsumer exceptions = s.createConsumer(eq);
        assertNull(exceptions.receive(300), "B may still take both: nothing moved");
        assertEquals("B takes it", ((TextMessage) b.receive(10_000)).getText());
        s.commit();
        for (int attempt = 1; attempt <= 2; attempt++) {
            assertEquals("nobody takes it", ((TextMessage) b.receive(10_000)).getText());
            s.rollback();
        }
        // pgaq: both moved, the one B took as well (A gave up on it); the guide's "only when
        // all the recipients ... have exceeded the retry limit" would move the second only
        assertEquals("B takes it", ((TextMessage) exceptions.receive(10_000)).getText());
        assertEquals("nobody takes it", ((TextMessage) exceptions.receive(10_000)).getText());
        s.commit();
    }

    /** "Exception Queues": "The message was not dequeued within the specified timeToLive" and
     *  goes to the exception queue. */
    @Test
    void anExpiredMessageGoesToTheExceptionQueue() throws Exception {
        AQjmsQueue q = queue("expiring", new AQjmsDestinationProperty());
        toClose.add(new QueueMonitor());  // "The ... queue monitor must be running to implement TimeToLive"
        AQjmsSession s = (AQjmsSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        s.createProducer(q).send(s.createTextMessage("too late"), DeliveryMode.PERSISTENT, 1, 1000);
        AQjmsDestination eq = (AQjmsDestination) s.getQueue(schema, "AQ$_expiring_qt_E");
        eq.start(s, false, true);
        connection.start();
        Message m = s.createConsumer(eq).receive(30_000);
        assertNotNull(m, "moved once expired");
        assertEquals("too late", ((TextMessage) m).getText());
        assertNull(s.createConsumer(q).receiveNoWait());
    }

    // -- "Recipient Lists", "TopicReceiver", "TopicBrowser" -------------------------------------

    /** Oracle Database Advanced Queuing User's Guide, "Recipient Lists": "clients can specify
     *  explicit recipient lists instead of having messages sent to all the subscribers of the
     *  topic. These recipients may or may not be existing subscribers"; and "TopicReceiver":
     *  a recipient that is not a subscriber receives with a TopicReceiver, which "can be
     *  created with a messageSelector". */
    @Test
    void recipientListsAndTopicReceivers() throws Exception {
        AQjmsTopic t = topic("deals", new AQjmsDestinationProperty());
        AQjmsSession s = (AQjmsSession) connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
        TopicSubscriber a = s.createDurableSubscriber(t, "SUB_A");
        TopicSubscriber b = s.createDurableSubscriber(t, "SUB_B");
        AQjmsProducer publisher = (AQjmsProducer) s.createProducer(t);
        publisher.publish(s.createTextMessage("for A alone"), new AQjmsAgent[] {new AQjmsAgent("SUB_A", null)});
        TextMessage vip = s.createTextMessage("for a non-subscriber");
        vip.setStringProperty("tier", "gold");
        publisher.publish(vip, new AQjmsAgent[] {new AQjmsAgent("OUTSIDER", null)});
        TextMessage other = s.createTextMessage("also for him, but silver");
        other.setStringProperty("tier", "silver");
        publisher.publish(other, new AQjmsAgent[] {new AQjmsAgent("OUTSIDER", null)});
        publisher.publish(s.createTextMessage("for all subscribers"));
        connection.start();
        assertEquals("for A alone", ((TextMessage) a.receive(10_000)).getText());
        assertEquals("for all subscribers", ((TextMessage) a.receive(10_000)).getText());
        assertEquals("for all subscribers", ((TextMessage) b.receive(10_000)).getText(),
                "the recipient list overrides the subscription list for its message");
        assertNull(b.receive(300));
        AQjmsConsumer outsider = s.createTopicReceiver(t, "OUTSIDER", "tier = 'gold'");
        assertEquals("for a non-subscriber", ((TextMessage) outsider.receive(10_000)).getText());
        assertNull(outsider.receive(300), "the selector restricts it");
        outsider.close();
        AQjmsConsumer all = s.createTopicReceiver(t, "OUTSIDER", null);
        assertEquals("also for him, but silver", ((TextMessage) all.receive(10_000)).getText());
    }

    private static List<String> texts(Enumeration<?> e) throws JMSException {
        List<String> out = new ArrayList<>();
        while (e.hasMoreElements()) {
            out.add(((TextMessage) e.nextElement()).getText());
        }
        return out;
    }

    /** Oracle Database Advanced Queuing User's Guide, "TopicBrowser": a durable subscriber's
     *  messages viewed without removing them, with or without a messageSelector; purgeSeen
     *  discards those returned by nextElement ("Messages that have not yet been seen by the
     *  client are not discarded"), may be called again, and takes effect with the session's
     *  commit ("If the operations on the session are rolled back, then the effects of the
     *  purge operation are also undone"). */
    @Test
    void topicBrowser() throws Exception {
        AQjmsTopic t = topic("bulletins", new AQjmsDestinationProperty());
        AQjmsSession s = (AQjmsSession) connection.createSession(true, 0);
        s.createDurableSubscriber(t, "READER").close();
        MessageProducer p = s.createProducer(t);
        for (String text : new String[] {"red one", "blue one", "red two"}) {
            TextMessage m = s.createTextMessage(text);
            m.setStringProperty("color", text.startsWith("red") ? "RED" : "BLUE");
            p.send(m);
        }
        s.commit();
        assertEquals(Arrays.asList("red one", "blue one", "red two"),
                texts(s.createBrowser(t, "READER", null).getEnumeration()));
        assertEquals(Arrays.asList("red one", "red two"),
                texts(s.createBrowser(t, "READER", "color = 'RED'").getEnumeration()));

        AQjmsQueueBrowser browser = s.createBrowser(t, "READER", null);
        assertEquals(t, browser.getTopic());
        Enumeration<?> e = browser.getEnumeration();
        e.nextElement();
        e.nextElement();
        browser.purgeSeen();
        s.rollback();
        assertEquals(Arrays.asList("red one", "blue one", "red two"), texts(browser.getEnumeration()),
                "the rolled-back purge is undone");
        e = browser.getEnumeration();
        e.nextElement();
        browser.purgeSeen();
        e.nextElement();
        browser.purgeSeen();  // again: what was seen since
        s.commit();
        assertEquals(Arrays.asList("red two"), texts(s.createBrowser(t, "READER", null).getEnumeration()),
                "the unseen message stays");
        connection.start();
        TopicSubscriber reader = s.createDurableSubscriber(t, "READER");
        assertEquals("red two", ((TextMessage) reader.receive(10_000)).getText());
        assertNull(reader.receive(300));
        s.commit();
        assertThrows(javax.jms.IllegalStateException.class,
                () -> ((AQjmsQueueBrowser) s.createBrowser(queue("plain_q", new AQjmsDestinationProperty())))
                        .purgeSeen(), "a QueueBrowser has no purge");
    }

    private static void fail(String why) {
        org.junit.jupiter.api.Assertions.fail(why);
    }
}
