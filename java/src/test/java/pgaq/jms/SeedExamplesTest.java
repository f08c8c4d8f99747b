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
    void close() throws JMSException {
        System.clearProperty(STREAMING);
        System.clearProperty(THRESHOLD);
        connection.close();
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
        make("queueName", false, new AQjmsDestinationProperty());
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
        AQjmsDestination q = make("streamed", false, new AQjmsDestinationProperty());
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

    private static void fail(String why) {
        org.junit.jupiter.api.Assertions.fail(why);
    }
}
