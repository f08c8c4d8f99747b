package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

/** MessageProducer: defaults, per-send values, the header fields a send sets, time to live,
 *  priority (JMS 1.1 3.4, 4.6, 4.8; Oracle Database Advanced Queuing User's Guide, "JMS
 *  Message Headers", "QueueSender", "JMS Message Producer Features"). */
class ProducerConformanceTest extends ConformanceTest {

    /** How far pgaq's JMSTimestamp may be from this JVM's clock: Oracle's is the database's
     *  enqueue time (the guide, "JMS Message Headers": JMSTimeStamp "maps to Oracle Database
     *  Advanced Queuing message enqueue time"), and the database may be another machine. */
    private static final long DB_CLOCK_SLACK = 2_000;

    /** The default priority: JMS 1.1's 4 (Message.DEFAULT_PRIORITY). Oracle's JMS differs
     *  by default: "In Java EE-compliance mode, the permitted values for priority are 0-9,
     *  with 9 the highest priority and 4 the default ... Noncompliant mode is the default"
     *  (the guide, "JMS Message Headers"); non-compliant, JMSPriority is AQ's priority, whose
     *  default is 1 (docs/jms.md, "Compliance modes"). */
    static int defaultPriority(Provider p) {
        return p.isPgaq() ? 1 : Message.DEFAULT_PRIORITY;
    }

    @ForEachProvider
    void producerDefaults(Provider p) throws Exception {
        Session s = autoAck(connect(p));
        Queue q = queue(p, s, "pdefaults");
        MessageProducer producer = s.createProducer(q);
        assertEquals(DeliveryMode.PERSISTENT, producer.getDeliveryMode());
        assertEquals(0L, producer.getTimeToLive());
        assertEquals(defaultPriority(p), producer.getPriority());
        assertFalse(producer.getDisableMessageID());
        assertFalse(producer.getDisableMessageTimestamp());
        assertTrue(sameDestination(q, producer.getDestination()));
    }

    /** JMS 1.1 3.4: JMSDestination, JMSDeliveryMode, JMSMessageID ("must start with the
     *  prefix 'ID:'"), JMSTimestamp, JMSExpiration and JMSPriority are set on the message by
     *  the send; the receiver reads the same (the guide, "JMS Message Headers": each "set by
     *  JMS after the Send method has completed"). */
    @ForEachProvider
    void sendSetsTheHeaderFields(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "pheaders");
        TextMessage m = s.createTextMessage("headers");
        long before = System.currentTimeMillis();
        s.createProducer(q).send(m);
        long after = System.currentTimeMillis();
        assertTrue(sameDestination(q, m.getJMSDestination()), "JMSDestination " + m.getJMSDestination());
        assertEquals(DeliveryMode.PERSISTENT, m.getJMSDeliveryMode());
        assertNotNull(m.getJMSMessageID());
        assertTrue(m.getJMSMessageID().startsWith("ID:"), m.getJMSMessageID());
        long slack = p.isPgaq() ? DB_CLOCK_SLACK : 0;
        assertTrue(m.getJMSTimestamp() >= before - slack && m.getJMSTimestamp() <= after + slack,
                "JMSTimestamp " + m.getJMSTimestamp() + " not in [" + before + ", " + after + "]");
        assertEquals(0L, m.getJMSExpiration());
        assertEquals(defaultPriority(p), m.getJMSPriority());

        Message got = s.createConsumer(q).receive(WAIT);
        assertEquals("headers", text(got));
        assertEquals(m.getJMSMessageID(), got.getJMSMessageID());
        assertEquals(m.getJMSTimestamp(), got.getJMSTimestamp());
        assertTrue(sameDestination(q, got.getJMSDestination()), "JMSDestination " + got.getJMSDestination());
        assertEquals(DeliveryMode.PERSISTENT, got.getJMSDeliveryMode());
        assertEquals(0L, got.getJMSExpiration());
        assertEquals(defaultPriority(p), got.getJMSPriority());
    }

    /** JMS 1.1 3.4.9: "When a message is sent, JMSExpiration is left unassigned... On return
     *  from the send method, the message's JMSExpiration header field contains the sum of the
     *  time-to-live value specified on the send method and the time of the send." Oracle, non
     *  compliant: "the sum of the enqueue time and the TimeToLive" (the guide, "JMS Message
     *  Headers"), AQ keeping whole seconds; a whole number of seconds reads the same in both. */
    @ForEachProvider
    void perSendValuesOverrideTheProducer(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "poverride");
        MessageProducer producer = s.createProducer(q);
        TextMessage m = s.createTextMessage("override");
        producer.send(m, DeliveryMode.NON_PERSISTENT, 7, 60_000);
        assertEquals(DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
        assertEquals(7, m.getJMSPriority());
        assertEquals(m.getJMSTimestamp() + 60_000, m.getJMSExpiration());
        // the producer's own defaults are unchanged
        assertEquals(DeliveryMode.PERSISTENT, producer.getDeliveryMode());
        assertEquals(defaultPriority(p), producer.getPriority());
        assertEquals(0L, producer.getTimeToLive());

        Message got = s.createConsumer(q).receive(WAIT);
        assertEquals("override", text(got));
        assertEquals(DeliveryMode.NON_PERSISTENT, got.getJMSDeliveryMode());
        assertEquals(7, got.getJMSPriority());
        assertEquals(got.getJMSTimestamp() + 60_000, got.getJMSExpiration());
    }

    @ForEachProvider
    void producerDefaultsApplyToItsSends(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "psetters");
        MessageProducer producer = s.createProducer(q);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        producer.setPriority(6);
        producer.setTimeToLive(120_000);
        assertEquals(DeliveryMode.NON_PERSISTENT, producer.getDeliveryMode());
        assertEquals(6, producer.getPriority());
        assertEquals(120_000L, producer.getTimeToLive());
        producer.send(s.createTextMessage("defaults"));
        Message got = s.createConsumer(q).receive(WAIT);
        assertEquals("defaults", text(got));
        assertEquals(DeliveryMode.NON_PERSISTENT, got.getJMSDeliveryMode());
        assertEquals(6, got.getJMSPriority());
        assertEquals(got.getJMSTimestamp() + 120_000, got.getJMSExpiration());
    }

    /** JMS 1.1 3.4.9: "If a message's expiration time is reached ... it should be destroyed";
     *  "Clients should not receive messages that have expired". Oracle: "Messages are moved to
     *  the exception queue ... The message was not dequeued within the specified timeToLive"
     *  (the guide, "Exception Queues"); "The Oracle Database Advanced Queuing background
     *  process queue monitor must be running to implement TimeToLive" ("Specifying a Message
     *  Expiration"), so on pgaq this test needs pgaq's monitor service. */
    @ForEachProvider
    void expiredMessagesAreNotDelivered(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "pexpire");
        MessageProducer producer = s.createProducer(q);
        TextMessage fleeting = s.createTextMessage("expired");
        producer.send(fleeting, DeliveryMode.PERSISTENT, producer.getPriority(), 1_000);
        producer.send(s.createTextMessage("alive"));
        if (p.isPgaq()) {
            // the queue monitor moves it to the exception queue once its time to live is over
            Message moved = s.createConsumer(p.exceptionQueue(s, q)).receive(WAIT);
            assertEquals("expired", text(moved));
        } else {
            // ActiveMQ drops it without a sign: the time to live must pass
            long sleep = fleeting.getJMSExpiration() + 1_000 - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
        }
        MessageConsumer consumer = s.createConsumer(q);
        assertEquals("alive", receiveText(consumer));
        assertNothing(consumer);
    }

    /** Priority ordering. JMS 1.1 3.4.10: "levels 5-9 as expedited priority"; a provider
     *  "should do its best to deliver expedited messages ahead of normal messages" (0 lowest,
     *  9 highest). Oracle's default (non-compliant) mode keeps AQ's priorities, where a smaller
     *  number is more urgent (the guide, "JMS Message Headers": only "In Java EE-compliance
     *  mode ... 9 the highest priority"; docs/jms.md "Compliance modes"), and orders by
     *  priority only a queue whose queue table was made so ("Priority and Ordering of
     *  Messages": "FIFO Priority ... If two messages are assigned the same priority, then
     *  they are received in the order of their enqueue time"). */
    @ForEachProvider
    void priorityOrdering(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = p.priorityQueue(s, unique("prio"));
        MessageProducer producer = s.createProducer(q);
        String[][] sends = {{"3", "p3"}, {"8", "p8a"}, {"1", "p1"}, {"8", "p8b"}, {"5", "p5"}};
        for (String[] send : sends) {
            producer.send(s.createTextMessage(send[1]), DeliveryMode.PERSISTENT,
                    Integer.parseInt(send[0]), 0);
        }
        List<String> expected = p.isPgaq()
                ? Arrays.asList("p1", "p3", "p5", "p8a", "p8b")  // Oracle: smaller is more urgent
                : Arrays.asList("p8a", "p8b", "p5", "p3", "p1"); // JMS: 9 is the highest
        MessageConsumer consumer = s.createConsumer(q);
        List<String> got = new ArrayList<>();
        List<Integer> priorities = new ArrayList<>();
        for (int i = 0; i < sends.length; i++) {
            Message m = consumer.receive(WAIT);
            got.add(text(m));
            priorities.add(m.getJMSPriority());
        }
        assertEquals(expected, got);
        assertEquals(p.isPgaq() ? Arrays.asList(1, 3, 5, 8, 8) : Arrays.asList(8, 8, 5, 3, 1),
                priorities);
    }

    /** The priority a message was sent with is the one it is received with (on a FIFO queue
     *  the order stays the send order). */
    @ForEachProvider
    void priorityRoundTrips(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "pprio");
        MessageProducer producer = s.createProducer(q);
        for (int prio : new int[] {0, 2, 7, 9}) {
            producer.send(s.createTextMessage("p" + prio), DeliveryMode.PERSISTENT, prio, 0);
        }
        MessageConsumer consumer = s.createConsumer(q);
        List<Integer> priorities = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Message m = consumer.receive(WAIT);
            assertEquals("p" + m.getJMSPriority(), text(m));
            priorities.add(m.getJMSPriority());
        }
        priorities.sort(null);
        assertEquals(Arrays.asList(0, 2, 7, 9), priorities);
    }

    @ForEachProvider
    void nonPersistentRoundTrip(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "pnonpers");
        MessageProducer producer = s.createProducer(q);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        producer.send(s.createTextMessage("fleeting"));
        producer.send(s.createTextMessage("lasting"), DeliveryMode.PERSISTENT, producer.getPriority(), 0);
        MessageConsumer consumer = s.createConsumer(q);
        List<String> got = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Message m = consumer.receive(WAIT);
            got.add(text(m) + "/" + m.getJMSDeliveryMode());
        }
        got.sort(null);
        assertEquals(Arrays.asList("fleeting/" + DeliveryMode.NON_PERSISTENT,
                "lasting/" + DeliveryMode.PERSISTENT), got);
    }

    /** JMS 1.1 4.6: "a client can create a message producer without supplying a destination.
     *  In this case, a destination must be provided with every send operation" (the guide,
     *  "QueueSender": "In that case a queue must be specified on every send operation"). */
    @ForEachProvider
    void unidentifiedProducerSendsToTheGivenDestination(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q1 = queue(p, s, "pnull1");
        Queue q2 = queue(p, s, "pnull2");
        MessageProducer producer = s.createProducer(null);
        assertNull(producer.getDestination());
        TextMessage m = s.createTextMessage("to q1");
        producer.send(q1, m);
        assertTrue(sameDestination(q1, m.getJMSDestination()));
        producer.send(q2, s.createTextMessage("to q2"), DeliveryMode.NON_PERSISTENT, 3, 0);
        assertEquals("to q1", receiveText(s.createConsumer(q1)));
        Message got = s.createConsumer(q2).receive(WAIT);
        assertEquals("to q2", text(got));
        assertEquals(DeliveryMode.NON_PERSISTENT, got.getJMSDeliveryMode());
        assertEquals(3, got.getJMSPriority());
    }

    /** JMS 1.1 MessageProducer.send(Message): "UnsupportedOperationException - if a client uses
     *  this method with a MessageProducer that did not specify a destination at creation
     *  time". */
    @ForEachProvider
    void unidentifiedProducerNeedsADestination(Provider p) throws Exception {
        Session s = autoAck(connect(p));
        MessageProducer producer = s.createProducer(null);
        assertThrows(UnsupportedOperationException.class,
                () -> producer.send(s.createTextMessage("nowhere")));
    }

    /** JMS 1.1 MessageProducer.send(Destination, Message): "UnsupportedOperationException - if
     *  a client uses this method with a MessageProducer that specified a destination at
     *  creation time". */
    @ForEachProvider
    void identifiedProducerRefusesAnotherDestination(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q1 = queue(p, s, "pfixed1");
        Queue q2 = queue(p, s, "pfixed2");
        MessageProducer producer = s.createProducer(q1);
        assertThrows(UnsupportedOperationException.class,
                () -> producer.send(q2, s.createTextMessage("elsewhere")));
        assertNothing(s.createConsumer(q2));
    }

    /** JMS 1.1 3.4.3 / 3.4.4: disabling message ids or timestamps is a hint: a provider that
     *  ignores it sets them as usual; one that follows it leaves null / 0. */
    @ForEachProvider
    void disablingIdsAndTimestampsIsAHint(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "phints");
        MessageProducer producer = s.createProducer(q);
        producer.setDisableMessageID(true);
        producer.setDisableMessageTimestamp(true);
        assertTrue(producer.getDisableMessageID());
        assertTrue(producer.getDisableMessageTimestamp());
        long before = System.currentTimeMillis();
        producer.send(s.createTextMessage("hinted"));
        Message got = s.createConsumer(q).receive(WAIT);
        assertEquals("hinted", text(got));
        String id = got.getJMSMessageID();
        assertTrue(id == null || id.startsWith("ID:"), "JMSMessageID " + id);
        long ts = got.getJMSTimestamp();
        assertTrue(ts == 0 || ts >= before - DB_CLOCK_SLACK, "JMSTimestamp " + ts);
    }

    /** JMS 1.1 3.9: "After sending a message, a client may retain and modify it without
     *  affecting the message that has been sent. The same message object may be sent
     *  multiple times." Each send is a new message, with a new JMSMessageID. */
    @ForEachProvider
    void aMessageMayBeModifiedAndSentAgain(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "presend");
        MessageProducer producer = s.createProducer(q);
        TextMessage m = s.createTextMessage("first");
        producer.send(m);
        String firstId = m.getJMSMessageID();
        m.setText("second");
        producer.send(m);
        assertNotEquals(firstId, m.getJMSMessageID());
        MessageConsumer consumer = s.createConsumer(q);
        Message one = consumer.receive(WAIT);
        Message two = consumer.receive(WAIT);
        assertEquals("first", text(one));
        assertEquals("second", text(two));
        assertEquals(firstId, one.getJMSMessageID());
        assertNotEquals(one.getJMSMessageID(), two.getJMSMessageID());
    }

    /** Two producers of one session, on two connections' worth of senders: each producer's
     *  messages keep their order (JMS 1.1 4.4.10). */
    @ForEachProvider
    void eachProducersOrderIsKept(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "pmulti");
        MessageProducer a = s.createProducer(q);
        MessageProducer b = s.createProducer(q);
        for (int i = 0; i < 5; i++) {
            a.send(s.createTextMessage("a" + i));
            b.send(s.createTextMessage("b" + i));
        }
        List<String> got = receiveTexts(s.createConsumer(q), 10);
        List<String> fromA = new ArrayList<>();
        List<String> fromB = new ArrayList<>();
        for (String t : got) {
            (t.startsWith("a") ? fromA : fromB).add(t);
        }
        assertEquals(Arrays.asList("a0", "a1", "a2", "a3", "a4"), fromA);
        assertEquals(Arrays.asList("b0", "b1", "b2", "b3", "b4"), fromB);
    }

    /** Whether {@code actual} names the same destination as {@code expected} (pgaq may spell
     *  a queue's name OWNER.NAME in upper case, as Oracle does). */
    static boolean sameDestination(Destination expected, Destination actual) throws Exception {
        if (expected == null || actual == null) {
            return expected == actual;
        }
        if (expected.equals(actual)) {
            return true;
        }
        if (expected instanceof Queue && actual instanceof Queue) {
            return ((Queue) expected).getQueueName().equalsIgnoreCase(((Queue) actual).getQueueName());
        }
        if (expected instanceof javax.jms.Topic && actual instanceof javax.jms.Topic) {
            return ((javax.jms.Topic) expected).getTopicName()
                    .equalsIgnoreCase(((javax.jms.Topic) actual).getTopicName());
        }
        return false;
    }
}
