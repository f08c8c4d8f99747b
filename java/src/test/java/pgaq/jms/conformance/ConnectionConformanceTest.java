package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.jms.Connection;
import javax.jms.ConnectionMetaData;
import javax.jms.ExceptionListener;
import javax.jms.IllegalStateException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;

/** Connection: start/stop/close, client identifier, metadata, exception listener
 *  (JMS 1.1 section 4.3; Oracle Database Advanced Queuing User's Guide, "JMS Connection"). */
class ConnectionConformanceTest extends ConformanceTest {

    /** "When a Connection is created it is in stopped mode. In this state no messages can be
     *  delivered to it" and "A MessageProducer can send messages while a Connection is
     *  stopped" (the guide, "JMS Connection"; JMS 1.1 4.3.3). */
    @ForEachProvider
    void stoppedConnectionReceivesNothingUntilStarted(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "stopped");
        s.createProducer(q).send(s.createTextMessage("held"));
        MessageConsumer consumer = s.createConsumer(q);
        assertNull(consumer.receiveNoWait(), "receiveNoWait on a stopped connection");
        assertNull(consumer.receive(ABSENT), "receive(timeout) on a stopped connection");
        c.start();
        assertEquals("held", receiveText(consumer));
    }

    @ForEachProvider
    void stoppedConnectionDoesNotCallListener(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "stoplsn");
        CountDownLatch delivered = new CountDownLatch(1);
        s.createConsumer(q).setMessageListener(m -> delivered.countDown());
        Session sender = autoAck(connect(p));
        sender.createProducer(q).send(sender.createTextMessage("wait for start"));
        assertFalse(delivered.await(ABSENT * 2, TimeUnit.MILLISECONDS),
                "listener called while the connection is stopped");
        c.start();
        assertTrue(delivered.await(WAIT, TimeUnit.MILLISECONDS), "listener not called after start");
    }

    @ForEachProvider
    void stopPausesDeliveryAndStartResumes(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "pause");
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        s.createConsumer(q).setMessageListener(m -> got.add(textOrError(m)));
        Session sender = autoAck(connect(p));
        MessageProducer producer = sender.createProducer(q);
        producer.send(sender.createTextMessage("one"));
        assertEquals("one", got.poll(WAIT, TimeUnit.MILLISECONDS));
        c.stop();
        producer.send(sender.createTextMessage("two"));
        assertNull(got.poll(ABSENT * 2, TimeUnit.MILLISECONDS), "delivered while stopped");
        c.start();
        assertEquals("two", got.poll(WAIT, TimeUnit.MILLISECONDS));
    }

    /** JMS 1.1 Connection.stop: "This call blocks until receives and/or message listeners in
     *  progress have completed." */
    @ForEachProvider
    void stopWaitsForTheRunningListener(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "stopwait");
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        s.createConsumer(q).setMessageListener(m -> {
            entered.countDown();
            try {
                never.await(500, TimeUnit.MILLISECONDS); // a listener still busy when stop() is called
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.set(true);
        });
        Session sender = autoAck(connect(p));
        sender.createProducer(q).send(sender.createTextMessage("slow"));
        assertTrue(entered.await(WAIT, TimeUnit.MILLISECONDS));
        c.stop();
        assertTrue(finished.get(), "stop() returned while the listener was still running");
    }

    @ForEachProvider
    void startAndStopAreIdempotent(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "idem");
        c.start();
        c.start();
        c.stop();
        c.stop();
        c.start();
        s.createProducer(q).send(s.createTextMessage("after restarts"));
        assertEquals("after restarts", receiveText(s.createConsumer(q)));
    }

    /** JMS 1.1 4.3.5: "A close terminates all pending message receives on the connection's
     *  session's consumers. The receives may return with a message or null depending on
     *  whether there was a message or not available at the time of the close." */
    @ForEachProvider
    void closeUnblocksReceive(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        MessageConsumer consumer = s.createConsumer(queue(p, s, "unblock"));
        CountDownLatch receiving = new CountDownLatch(1);
        Future<Message> pending = async(() -> {
            receiving.countDown();
            return consumer.receive();
        });
        assertTrue(receiving.await(WAIT, TimeUnit.MILLISECONDS));
        assertStillBlocked(pending);
        c.close();
        assertNull(pending.get(WAIT, TimeUnit.MILLISECONDS), "receive() after close of its connection");
    }

    /** JMS 1.1 MessageConsumer.close: "This call blocks until a receive or message listener in
     *  progress has completed. A blocked message consumer receive call returns null when this
     *  message consumer is closed." */
    @ForEachProvider
    void consumerCloseUnblocksReceive(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        MessageConsumer consumer = s.createConsumer(queue(p, s, "cunblock"));
        Future<Message> pending = async(consumer::receive);
        assertStillBlocked(pending);
        consumer.close();
        assertNull(pending.get(WAIT, TimeUnit.MILLISECONDS), "receive() after its consumer's close");
    }

    /** JMS 1.1 Session.close: "This call will block until a receive call or message listener in
     *  progress has completed. A blocked message consumer receive call returns null when this
     *  session is closed." */
    @ForEachProvider
    void sessionCloseUnblocksReceive(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        MessageConsumer consumer = s.createConsumer(queue(p, s, "sunblock"));
        Future<Message> pending = async(consumer::receive);
        assertStillBlocked(pending);
        s.close();
        assertNull(pending.get(WAIT, TimeUnit.MILLISECONDS), "receive() after its session's close");
    }

    @ForEachProvider
    void closeIsIdempotent(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "close2");
        MessageProducer producer = s.createProducer(q);
        MessageConsumer consumer = s.createConsumer(q);
        consumer.close();
        consumer.close();
        producer.close();
        producer.close();
        s.close();
        s.close();
        c.close();
        c.close();
    }

    @ForEachProvider
    void closedConnectionRefusesOperations(Provider p) throws Exception {
        Connection c = connect(p);
        c.close();
        assertThrows(IllegalStateException.class, () -> c.createSession(false, Session.AUTO_ACKNOWLEDGE));
        assertThrows(IllegalStateException.class, c::start);
        assertThrows(IllegalStateException.class, () -> c.setClientID(unique("late")));
    }

    @ForEachProvider
    void closedSessionRefusesOperations(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "closeds");
        s.close();
        assertThrows(IllegalStateException.class, () -> s.createProducer(q));
        assertThrows(IllegalStateException.class, () -> s.createConsumer(q));
        assertThrows(IllegalStateException.class, () -> s.createTextMessage("x"));
    }

    @ForEachProvider
    void closedProducerAndConsumerRefuseOperations(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "closedpc");
        MessageProducer producer = s.createProducer(q);
        MessageConsumer consumer = s.createConsumer(q);
        producer.close();
        consumer.close();
        assertThrows(IllegalStateException.class, () -> producer.send(s.createTextMessage("x")));
        assertThrows(IllegalStateException.class, () -> consumer.receive(ABSENT));
        assertThrows(IllegalStateException.class, consumer::receiveNoWait);
    }

    /** Closing a connection closes its sessions, producers and consumers (JMS 1.1 4.3.5). */
    @ForEachProvider
    void closingConnectionClosesItsSessions(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "closeall");
        MessageProducer producer = s.createProducer(q);
        c.close();
        assertThrows(IllegalStateException.class, () -> s.createConsumer(q));
        assertThrows(IllegalStateException.class, () -> producer.send(s.createTextMessage("x")));
    }

    @ForEachProvider
    void clientIdIsKept(Provider p) throws Exception {
        String id = unique("client");
        Connection c = connect(p, id);
        assertEquals(id, c.getClientID());
    }

    /** JMS 1.1 4.3.2: the client identifier must be set before any other action on the
     *  connection; a later attempt throws IllegalStateException. */
    @ForEachProvider
    void clientIdAfterUseIsRefused(Provider p) throws Exception {
        Connection c = connect(p);
        autoAck(c);
        assertThrows(IllegalStateException.class, () -> c.setClientID(unique("late")));
    }

    @ForEachProvider
    void clientIdCannotBeSetTwice(Provider p) throws Exception {
        Connection c = connect(p, unique("first"));
        assertThrows(IllegalStateException.class, () -> c.setClientID(unique("second")));
    }

    /** JMS 1.1 3.5.9: "JMSXGroupID and JMSXGroupSeq are standard properties clients should use
     *  if they want to group messages. All providers must support them." */
    @ForEachProvider
    void metaDataSaysJms11(Provider p) throws Exception {
        ConnectionMetaData md = connect(p).getMetaData();
        assertEquals("1.1", md.getJMSVersion());
        assertEquals(1, md.getJMSMajorVersion());
        assertEquals(1, md.getJMSMinorVersion());
        assertNotNull(md.getJMSProviderName());
        assertNotNull(md.getProviderVersion());
        List<String> names = strings(md.getJMSXPropertyNames());
        assertTrue(names.contains("JMSXGroupID"), "JMSX names " + names);
        assertTrue(names.contains("JMSXGroupSeq"), "JMSX names " + names);
        for (String n : names) {
            assertTrue(n.startsWith("JMSX"), n);
        }
    }

    @ForEachProvider
    void exceptionListenerIsKept(Provider p) throws Exception {
        Connection c = connect(p);
        assertNull(c.getExceptionListener());
        ExceptionListener listener = e -> { };
        c.setExceptionListener(listener);
        assertSame(listener, c.getExceptionListener());
        c.setExceptionListener(null);
        assertNull(c.getExceptionListener());
    }

    private static void assertStillBlocked(Future<Message> pending) {
        assertThrows(TimeoutException.class, () -> pending.get(ABSENT, TimeUnit.MILLISECONDS),
                "receive() returned with nothing to receive");
    }

    private static String textOrError(Message m) {
        try {
            return text(m);
        } catch (javax.jms.JMSException e) {
            return "error: " + e;
        }
    }
}
