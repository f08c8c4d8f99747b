package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageListener;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueConnection;
import javax.jms.QueueConnectionFactory;
import javax.jms.QueueReceiver;
import javax.jms.QueueSender;
import javax.jms.QueueSession;
import javax.jms.Session;
import javax.jms.TextMessage;

/** MessageConsumer on queues: receive forms, order, listeners, message selectors (JMS 1.1
 *  3.8, 4.5; Oracle Database Advanced Queuing User's Guide, "Receiving Messages",
 *  "MessageSelector", "Asynchronously Receiving Messages Using MessageListener"). */
class ConsumerConformanceTest extends ConformanceTest {

    @ForEachProvider
    void receiveWithTimeoutReturnsNullInTime(Provider p) throws Exception {
        Session s = autoAck(started(p));
        MessageConsumer consumer = s.createConsumer(queue(p, s, "ctimeout"));
        long t0 = System.nanoTime();
        assertNull(consumer.receive(500));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 450, "receive(500) returned after " + ms + " ms");
        assertTrue(ms < WAIT, "receive(500) returned after " + ms + " ms");
    }

    @ForEachProvider
    void receiveNoWaitOnEmptyQueueReturnsNull(Provider p) throws Exception {
        Session s = autoAck(started(p));
        MessageConsumer consumer = s.createConsumer(queue(p, s, "cnowait"));
        long t0 = System.nanoTime();
        assertNull(consumer.receiveNoWait());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < WAIT);
    }

    /** receiveNoWait returns a message that is there. A provider may need a moment to hand a
     *  message to a new consumer (ActiveMQ's prefetch), so it is asked again until it returns
     *  one, never for longer than WAIT. */
    @ForEachProvider
    void receiveNoWaitReturnsAWaitingMessage(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cnowait2");
        s.createProducer(q).send(s.createTextMessage("ready"));
        MessageConsumer consumer = s.createConsumer(q);
        long deadline = System.currentTimeMillis() + WAIT;
        Message m = consumer.receiveNoWait();
        while (m == null && System.currentTimeMillis() < deadline) {
            Thread.yield();
            m = consumer.receiveNoWait();
        }
        assertEquals("ready", text(m));
    }

    /** A receive() with no timeout blocks until a message comes. */
    @ForEachProvider
    void receiveBlocksUntilAMessageComes(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "cblock");
        MessageConsumer consumer = s.createConsumer(q);
        java.util.concurrent.Future<Message> pending = async(consumer::receive);
        Session sender = autoAck(connect(p));
        sender.createProducer(q).send(sender.createTextMessage("wake up"));
        assertEquals("wake up", text(pending.get(WAIT, TimeUnit.MILLISECONDS)));
    }

    /** JMS 1.1 4.4.10: "messages sent by a session to a destination must be received in the
     *  order in which they were sent" (the guide, "Priority and Ordering of Messages": FIFO is
     *  "the default ordering"). */
    @ForEachProvider
    void singleProducerOrderIsKept(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cfifo");
        MessageProducer producer = s.createProducer(q);
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            sent.add("m" + i);
            producer.send(s.createTextMessage("m" + i));
        }
        assertEquals(sent, receiveTexts(s.createConsumer(q), 25));
    }

    @ForEachProvider
    void listenerReceivesEveryMessageInOrder(Provider p) throws Exception {
        Connection c = connect(p);
        Session s = autoAck(c);
        Queue q = queue(p, s, "clistener");
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        MessageConsumer consumer = s.createConsumer(q);
        MessageListener listener = m -> {
            try {
                got.add(text(m));
            } catch (JMSException e) {
                got.add("error: " + e);
            }
        };
        consumer.setMessageListener(listener);
        assertSame(listener, consumer.getMessageListener());
        c.start();
        Session sender = autoAck(connect(p));
        MessageProducer producer = sender.createProducer(q);
        for (int i = 0; i < 5; i++) {
            producer.send(sender.createTextMessage("l" + i));
        }
        for (int i = 0; i < 5; i++) {
            assertEquals("l" + i, got.poll(WAIT, TimeUnit.MILLISECONDS));
        }
    }

    /** A queue message goes to one consumer only (JMS 1.1 4.4.x, PTP; the guide, "JMS
     *  Point-to-Point Model Features": "a message can be consumed exactly once by a single
     *  consumer"). */
    @ForEachProvider
    void competingConsumersEachGetDistinctMessages(Provider p) throws Exception {
        Connection c = connect(p);
        Session s1 = autoAck(c);
        Session s2 = autoAck(c);
        Queue q = queue(p, s1, "ccompete");
        int n = 20;
        CountDownLatch all = new CountDownLatch(n);
        List<String> got = Collections.synchronizedList(new ArrayList<>());
        MessageListener listener = m -> {
            try {
                got.add(text(m));
            } catch (JMSException e) {
                got.add("error: " + e);
            }
            all.countDown();
        };
        s1.createConsumer(q).setMessageListener(listener);
        s2.createConsumer(q).setMessageListener(listener);
        c.start();
        Session sender = autoAck(connect(p));
        MessageProducer producer = sender.createProducer(q);
        Set<String> sent = new HashSet<>();
        for (int i = 0; i < n; i++) {
            sent.add("c" + i);
            producer.send(sender.createTextMessage("c" + i));
        }
        assertTrue(all.await(WAIT, TimeUnit.MILLISECONDS), "received " + got);
        assertNothing(autoAck(started(p)).createConsumer(q));
        assertEquals(n, got.size(), "each message once: " + got);
        assertEquals(sent, new HashSet<>(got));
    }

    /** The guide, "Asynchronously Receiving Messages Using MessageListener": "The receive call
     *  must not be used to receive messages once the message listener has been set for the
     *  consumer" (JMS 1.1 4.5: a provider may throw; ActiveMQ and Oracle both refuse). */
    @ForEachProvider
    void receiveOnAConsumerWithAListenerIsRefused(Provider p) throws Exception {
        Session s = autoAck(started(p));
        MessageConsumer consumer = s.createConsumer(queue(p, s, "clisrecv"));
        consumer.setMessageListener(m -> { });
        assertThrows(JMSException.class, () -> consumer.receive(ABSENT));
    }

    @ForEachProvider
    void selectorOnUserProperties(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cselprop");
        MessageProducer producer = s.createProducer(q);
        producer.send(props(s, "red-big", "color", "red", "size", 5));
        producer.send(props(s, "red-small", "color", "red", "size", 2));
        producer.send(props(s, "blue-big", "color", "blue", "size", 9));
        MessageConsumer selective = s.createConsumer(q, "color = 'red' AND size > 3");
        assertEquals("color = 'red' AND size > 3", selective.getMessageSelector());
        assertEquals(Arrays.asList("red-big"), drainAndClose(selective));
        // the others stay in the queue for other consumers, in their order
        assertEquals(Arrays.asList("red-small", "blue-big"), drainAndClose(s.createConsumer(q)));
    }

    /** JMS 1.1 3.8.1.1: LIKE with ESCAPE, IN, BETWEEN, IS NULL, NOT, arithmetic, and the
     *  boolean and floating point literals (the guide, "MessageSelector": "color IN ('RED',
     *  'BLUE', 'GREEN') AND price &lt; 30000"). */
    @ForEachProvider
    void selectorOperators(Provider p) throws Exception {
        Session s = autoAck(started(p));
        List<Message> messages = new ArrayList<>();
        messages.add(props(s, "a", "code", "A_1", "price", 100, "color", "RED", "urgent", true,
                "weight", 1.5));
        messages.add(props(s, "b", "code", "AB1", "price", 35000, "color", "BLUE", "urgent", false,
                "weight", 2.5));
        messages.add(props(s, "c", "code", "C", "price", 20000, "color", "GREEN", "weight", 4.0));
        String[][] cases = {
            {"code LIKE 'A\\_%' ESCAPE '\\'", "a"},
            {"code LIKE 'A%'", "a,b"},
            {"color IN ('RED', 'BLUE', 'GREEN') AND price < 30000", "a,c"},
            {"price BETWEEN 150 AND 30000", "c"},
            {"price NOT BETWEEN 150 AND 30000", "a,b"},
            {"urgent IS NULL", "c"},
            {"urgent = TRUE", "a"},
            {"NOT urgent", "b"},
            {"weight * 2 > 4.5", "b,c"},
            {"color <> 'RED' AND (price > 30000 OR weight >= 4)", "b,c"},
            {"missing IS NULL AND missing2 IS NOT NULL", ""},
        };
        for (String[] c : cases) {
            Queue q = queue(p, s, "cselops");
            MessageProducer producer = s.createProducer(q);
            for (Message m : messages) {
                producer.send(m);
            }
            MessageConsumer consumer = s.createConsumer(q, c[0]);
            assertEquals(c[1], String.join(",", drainAndClose(consumer)), c[0]);
        }
    }

    /** The guide's own example ("MessageSelector"): "JMSPriority &lt; 3 AND JMSCorrelationID =
     *  'Fiction'". JMSPriority compares the value the message was sent with (in Oracle's
     *  default mode too, where that value is AQ's priority). */
    @ForEachProvider
    void selectorOnPriorityAndCorrelationId(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cselcorr");
        MessageProducer producer = s.createProducer(q);
        String[][] sends = {{"Poetry", "1"}, {"Fiction", "2"}, {"Fiction", "5"}};
        for (String[] send : sends) {
            TextMessage m = s.createTextMessage(send[0] + "/" + send[1]);
            m.setJMSCorrelationID(send[0]);
            producer.send(m, DeliveryMode.PERSISTENT, Integer.parseInt(send[1]), 0);
        }
        assertEquals(Arrays.asList("Fiction/2"),
                drainAndClose(s.createConsumer(q, "JMSPriority < 3 AND JMSCorrelationID = 'Fiction'")));
        assertEquals(Arrays.asList("Fiction/5"), drainAndClose(s.createConsumer(q, "JMSPriority > 4")));
        assertEquals(Arrays.asList("Poetry/1"), drainAndClose(s.createConsumer(q, "JMSCorrelationID LIKE 'Po%'")));
    }

    @ForEachProvider
    void selectorOnJmsType(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cseltype");
        MessageProducer producer = s.createProducer(q);
        for (String type : new String[] {"order", "invoice", "order"}) {
            TextMessage m = s.createTextMessage(type);
            m.setJMSType(type);
            producer.send(m);
        }
        assertEquals(Arrays.asList("invoice"), drainAndClose(s.createConsumer(q, "JMSType = 'invoice'")));
        assertEquals(Arrays.asList("order", "order"), drainAndClose(s.createConsumer(q, "JMSType <> 'invoice'")));
    }

    /** The guide, "MessageSelector": "JMS message identifier prefixed with 'ID:'" (also how a
     *  browsed message is removed: "use the JMSmesssageID as the selector", "Browsing
     *  Messages"). */
    @ForEachProvider
    void selectorOnMessageId(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cselid");
        MessageProducer producer = s.createProducer(q);
        List<String> ids = new ArrayList<>();
        for (String t : new String[] {"x", "y", "z"}) {
            TextMessage m = s.createTextMessage(t);
            producer.send(m);
            ids.add(m.getJMSMessageID());
        }
        Message m = s.createConsumer(q, "JMSMessageID = '" + ids.get(1) + "'").receive(WAIT);
        assertEquals("y", text(m));
        assertEquals(ids.get(1), m.getJMSMessageID());
        assertEquals(Arrays.asList("x", "z"), drainAndClose(s.createConsumer(q)));
    }

    @ForEachProvider
    void selectorOnTimestamp(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cselts");
        MessageProducer producer = s.createProducer(q);
        TextMessage early = s.createTextMessage("early");
        producer.send(early);
        // let the clock move on (not waiting for a delivery): the next send is strictly later
        Thread.sleep(50);
        TextMessage late = s.createTextMessage("late");
        producer.send(late);
        assertTrue(late.getJMSTimestamp() > early.getJMSTimestamp());
        assertEquals(Arrays.asList("late"),
                drainAndClose(s.createConsumer(q, "JMSTimestamp > " + early.getJMSTimestamp())));
        assertEquals(Arrays.asList("early"),
                drainAndClose(s.createConsumer(q, "JMSTimestamp <= " + early.getJMSTimestamp())));
    }

    /** JMS 1.1 3.8.1.1: "JMSDeliveryMode is treated as having the values 'PERSISTENT' and
     *  'NON_PERSISTENT'". */
    @ForEachProvider
    void selectorOnDeliveryMode(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "celmode");
        MessageProducer producer = s.createProducer(q);
        producer.send(s.createTextMessage("kept"), DeliveryMode.PERSISTENT, producer.getPriority(), 0);
        producer.send(s.createTextMessage("fleeting"), DeliveryMode.NON_PERSISTENT, producer.getPriority(), 0);
        assertEquals(Arrays.asList("fleeting"),
                drainAndClose(s.createConsumer(q, "JMSDeliveryMode = 'NON_PERSISTENT'")));
        assertEquals(Arrays.asList("kept"), drainAndClose(s.createConsumer(q, "JMSDeliveryMode = 'PERSISTENT'")));
    }

    /** JMS 1.1 Session.createConsumer: "InvalidSelectorException - if the message selector is
     *  invalid". */
    @ForEachProvider
    void invalidSelectorIsRefused(Provider p) throws Exception {
        Session s = autoAck(connect(p));
        Queue q = queue(p, s, "cselbad");
        assertThrows(InvalidSelectorException.class, () -> s.createConsumer(q, "color = "));
        assertThrows(InvalidSelectorException.class, () -> s.createConsumer(q, "color === 'red'"));
        assertThrows(InvalidSelectorException.class, () -> s.createConsumer(q, "(price > 3"));
    }

    /** JMS 1.1 3.8.1: "A value of null or an empty string indicates that there is no message
     *  selector for the message consumer." */
    @ForEachProvider
    void emptySelectorSelectsEverything(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "cselempty");
        MessageProducer producer = s.createProducer(q);
        producer.send(s.createTextMessage("one"));
        producer.send(props(s, "two", "color", "red"));
        assertEquals(Arrays.asList("one", "two"), drainAndClose(s.createConsumer(q, "")));
        producer.send(s.createTextMessage("three"));
        assertEquals(Arrays.asList("three"), drainAndClose(s.createConsumer(q, null)));
    }

    /** The point-to-point domain's own interfaces: QueueConnectionFactory, QueueSession,
     *  QueueSender, QueueReceiver (JMS 1.1 chapter 5; the guide, "QueueSender",
     *  "QueueReceiver"). */
    @ForEachProvider
    void queueDomainInterfaces(Provider p) throws Exception {
        QueueConnectionFactory f = (QueueConnectionFactory) p.connectionFactory();
        QueueConnection qc = track(p, f.createQueueConnection());
        QueueSession qs = qc.createQueueSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue q = queue(p, qs, "cdomain");
        QueueSender sender = qs.createSender(q);
        assertTrue(ProducerConformanceTest.sameDestination(q, sender.getQueue()));
        QueueReceiver receiver = qs.createReceiver(q);
        assertTrue(ProducerConformanceTest.sameDestination(q, receiver.getQueue()));
        QueueReceiver selective = qs.createReceiver(q, "n = 2");
        assertEquals("n = 2", selective.getMessageSelector());
        qc.start();
        sender.send(props(qs, "one", "n", 1));
        sender.send(props(qs, "two", "n", 2));
        assertEquals("two", receiveText(selective));
        selective.close();
        assertEquals("one", receiveText(receiver));
        QueueSender anonymous = qs.createSender(null);
        anonymous.send(q, qs.createTextMessage("anonymous"));
        assertEquals("anonymous", receiveText(receiver));
    }

    /** A message with properties: pairs of name and value (String, Integer, Boolean, Double). */
    static Message props(Session s, String text, Object... pairs) throws JMSException {
        TextMessage m = s.createTextMessage(text);
        for (int i = 0; i < pairs.length; i += 2) {
            m.setObjectProperty((String) pairs[i], pairs[i + 1]);
        }
        return m;
    }
}
