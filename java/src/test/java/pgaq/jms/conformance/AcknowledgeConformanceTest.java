package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;

/** Non-transacted sessions and their acknowledge modes (JMS 1.1 4.4.11, 4.5.2; Oracle Database
 *  Advanced Queuing User's Guide, "JMS Session": "acknowledge() This method acknowledges
 *  message receipt in a nontransactional session. recover() This method restarts message
 *  delivery in a nontransactional session"). */
class AcknowledgeConformanceTest extends ConformanceTest {

    @ForEachProvider
    void sessionsReportTheirModes(Provider p) throws Exception {
        Connection c = connect(p);
        Session auto = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Session client = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Session dups = c.createSession(false, Session.DUPS_OK_ACKNOWLEDGE);
        Session tx = c.createSession(true, Session.AUTO_ACKNOWLEDGE);
        assertFalse(auto.getTransacted());
        assertEquals(Session.AUTO_ACKNOWLEDGE, auto.getAcknowledgeMode());
        assertFalse(client.getTransacted());
        assertEquals(Session.CLIENT_ACKNOWLEDGE, client.getAcknowledgeMode());
        assertFalse(dups.getTransacted());
        assertEquals(Session.DUPS_OK_ACKNOWLEDGE, dups.getAcknowledgeMode());
        // a transacted session ignores the acknowledge mode it was given
        assertTrue(tx.getTransacted());
        assertEquals(Session.SESSION_TRANSACTED, tx.getAcknowledgeMode());
    }

    @ForEachProvider
    void autoAcknowledgeRemovesOnReceive(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "auto");
        s.createProducer(q).send(s.createTextMessage("once"));
        Message m = s.createConsumer(q).receive(WAIT);
        assertEquals("once", text(m));
        assertFalse(m.getJMSRedelivered());
        c.close();
        Session again = autoAck(started(p));
        assertNothing(again.createConsumer(q));
    }

    /** JMS 1.1 3.5.9: JMSXDeliveryCount, "the number of message delivery attempts; the first
     *  is 1" (the guide lists it among the properties a client can get, "Using Message
     *  Properties with Different Message Types"). */
    @ForEachProvider
    void firstDeliveryIsNotRedelivered(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "first");
        s.createProducer(q).send(s.createTextMessage("fresh"));
        Message m = s.createConsumer(q).receive(WAIT);
        assertEquals("fresh", text(m));
        assertFalse(m.getJMSRedelivered());
        assertEquals(1, m.getIntProperty("JMSXDeliveryCount"));
    }

    @ForEachProvider
    void clientAcknowledgeKeepsUnacknowledgedMessages(Provider p) throws Exception {
        Connection c = started(p);
        Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = queue(p, s, "unacked");
        s.createProducer(q).send(s.createTextMessage("not acknowledged"));
        Message m = s.createConsumer(q).receive(WAIT);
        assertEquals("not acknowledged", text(m));
        c.close();
        Session again = autoAck(started(p));
        Message redelivered = again.createConsumer(q).receive(WAIT);
        assertEquals("not acknowledged", text(redelivered));
        assertEquals(m.getJMSMessageID(), redelivered.getJMSMessageID());
        assertTrue(redelivered.getJMSRedelivered(), "JMSRedelivered of a message delivered before");
    }

    /** JMS 1.1 Message.acknowledge: "Acknowledging a consumed message automatically
     *  acknowledges the receipt of all messages that have been delivered by its session." */
    @ForEachProvider
    void acknowledgeAcknowledgesEverythingTheSessionDelivered(Provider p) throws Exception {
        Connection c = started(p);
        Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q1 = queue(p, s, "acka");
        Queue q2 = queue(p, s, "ackb");
        MessageProducer producer = s.createProducer(null);
        producer.send(q1, s.createTextMessage("a1"));
        producer.send(q1, s.createTextMessage("a2"));
        producer.send(q2, s.createTextMessage("b1"));
        MessageConsumer c1 = s.createConsumer(q1);
        MessageConsumer c2 = s.createConsumer(q2);
        Message first = c1.receive(WAIT);
        assertEquals("a1", text(first));
        assertEquals("a2", receiveText(c1));
        assertEquals("b1", receiveText(c2));
        first.acknowledge(); // the first message: acknowledges all three
        c.close();
        Session again = autoAck(started(p));
        assertNothing(again.createConsumer(q1));
        assertNothing(again.createConsumer(q2));
    }

    /** JMS 1.1 4.4.11 and Session.recover: "All consumers deliver messages in a serial order.
     *  Acknowledging a received message automatically acknowledges all messages that have been
     *  delivered to the client. Restarting a session causes it to take the following actions:
     *  Stop message delivery; Mark all messages that might have been delivered but not
     *  acknowledged as `redelivered'; Restart the delivery sequence including all
     *  unacknowledged messages that had been previously delivered." JMSXDeliveryCount counts
     *  the attempts (3.5.9). The guide, "JMS Session": "In effect, the series of delivered
     *  messages in the session is reset to the point after the last acknowledged message." */
    @ForEachProvider
    void recoverRedeliversWithRedeliveredFlagAndCount(Provider p) throws Exception {
        Session s = started(p).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = queue(p, s, "recover");
        s.createProducer(q).send(s.createTextMessage("again"));
        MessageConsumer consumer = s.createConsumer(q);
        Message m = consumer.receive(WAIT);
        assertEquals("again", text(m));
        assertFalse(m.getJMSRedelivered());
        s.recover();
        Message second = consumer.receive(WAIT);
        assertEquals("again", text(second));
        assertEquals(m.getJMSMessageID(), second.getJMSMessageID());
        assertTrue(second.getJMSRedelivered());
        assertEquals(2, second.getIntProperty("JMSXDeliveryCount"));
        second.acknowledge();
        s.recover();
        assertNothing(consumer);
    }

    @ForEachProvider
    void recoverRedeliversInTheOriginalOrder(Provider p) throws Exception {
        Session s = started(p).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = queue(p, s, "recorder");
        MessageProducer producer = s.createProducer(q);
        for (String t : Arrays.asList("m1", "m2", "m3")) {
            producer.send(s.createTextMessage(t));
        }
        MessageConsumer consumer = s.createConsumer(q);
        Message m1 = consumer.receive(WAIT);
        assertEquals("m1", text(m1));
        m1.acknowledge();
        assertEquals(Arrays.asList("m2", "m3"), receiveTexts(consumer, 2));
        s.recover();
        assertEquals(Arrays.asList("m2", "m3"), receiveTexts(consumer, 2));
    }

    /** "If it is received by a nontransacted session with CLIENT_ACKNOWLEDGE acknowledgment
     *  mode, then the effect of receiving this message is only visible after the client
     *  acknowledges the message. Without the acknowledgment, the message is not removed and
     *  will be redelivered if the client calls Session.recover" (Oracle Database Advanced
     *  Queuing User's Guide, "Transaction Commits and Client Acknowledgments", on
     *  NON_PERSISTENT messages). */
    @ForEachProvider
    void nonPersistentMessagesAreRecovered(Provider p) throws Exception {
        Session s = started(p).createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = queue(p, s, "recnonpers");
        s.createProducer(q).send(s.createTextMessage("fleeting"), DeliveryMode.NON_PERSISTENT,
                s.createProducer(q).getPriority(), 0);
        MessageConsumer consumer = s.createConsumer(q);
        Message m = consumer.receive(WAIT);
        assertEquals("fleeting", text(m));
        assertEquals(DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
        s.recover();
        Message again = consumer.receive(WAIT);
        assertEquals("fleeting", text(again));
        assertTrue(again.getJMSRedelivered());
        again.acknowledge();
        s.recover();
        assertNothing(consumer);
    }

    @ForEachProvider
    void recoverOnTransactedSessionIsIllegal(Provider p) throws Exception {
        Session tx = connect(p).createSession(true, Session.SESSION_TRANSACTED);
        assertThrows(IllegalStateException.class, tx::recover);
    }

    /** In AUTO_ACKNOWLEDGE, Message.acknowledge is ignored (JMS 1.1 Message.acknowledge:
     *  "Calls to acknowledge are ignored for both transacted sessions and sessions specified
     *  to use implicit acknowledgement modes"). */
    @ForEachProvider
    void acknowledgeIsIgnoredInAutoAcknowledge(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "ackignored");
        s.createProducer(q).send(s.createTextMessage("auto"));
        MessageConsumer consumer = s.createConsumer(q);
        Message m = consumer.receive(WAIT);
        assertEquals("auto", text(m));
        m.acknowledge(); // ignored, no exception
        s.recover(); // nothing is unacknowledged: nothing comes again
        assertNothing(consumer);
    }

    @ForEachProvider
    void dupsOkDeliversEveryMessageInOrder(Provider p) throws Exception {
        Connection c = started(p);
        Session s = c.createSession(false, Session.DUPS_OK_ACKNOWLEDGE);
        Queue q = queue(p, s, "dups");
        MessageProducer producer = s.createProducer(q);
        for (int i = 0; i < 10; i++) {
            producer.send(s.createTextMessage("d" + i));
        }
        MessageConsumer consumer = s.createConsumer(q);
        for (int i = 0; i < 10; i++) {
            assertEquals("d" + i, receiveText(consumer));
        }
    }

    /** JMS 1.1 4.5.2: with AUTO_ACKNOWLEDGE, a listener that throws a RuntimeException gets
     *  the message again ("the message will be immediately redelivered"), flagged
     *  JMSRedelivered. */
    @ForEachProvider
    void listenerThatThrowsGetsTheMessageAgain(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "lthrow");
        s.createProducer(q).send(s.createTextMessage("boom"));
        AtomicInteger calls = new AtomicInteger();
        BlockingQueue<Message> delivered = new LinkedBlockingQueue<>();
        s.createConsumer(q).setMessageListener(m -> {
            delivered.add(m);
            if (calls.incrementAndGet() == 1) {
                throw new RuntimeException("the application fails on the first delivery");
            }
        });
        c.start();
        Message first = delivered.poll(WAIT, TimeUnit.MILLISECONDS);
        Message second = delivered.poll(WAIT, TimeUnit.MILLISECONDS);
        assertEquals("boom", text(first));
        assertFalse(first.getJMSRedelivered());
        assertEquals("boom", text(second));
        assertEquals(first.getJMSMessageID(), second.getJMSMessageID());
        assertTrue(second.getJMSRedelivered());
        c.stop();
        c.close();
        assertNothing(autoAck(started(p)).createConsumer(q));
    }

    /** A listener in CLIENT_ACKNOWLEDGE mode that acknowledges consumes the message for good. */
    @ForEachProvider
    void listenerAcknowledgesInClientMode(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = c.createSession(false, Session.CLIENT_ACKNOWLEDGE);
        Queue q = queue(p, s, "lack");
        s.createProducer(q).send(s.createTextMessage("acked by listener"));
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        s.createConsumer(q).setMessageListener(m -> {
            try {
                got.add(text(m));
                m.acknowledge();
            } catch (JMSException e) {
                got.add("error: " + e);
            }
        });
        c.start();
        assertEquals("acked by listener", got.poll(WAIT, TimeUnit.MILLISECONDS));
        c.close();
        assertNothing(autoAck(started(p)).createConsumer(q));
    }
}
