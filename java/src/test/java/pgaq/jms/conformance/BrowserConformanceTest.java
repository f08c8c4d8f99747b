package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Session;

/** QueueBrowser (JMS 1.1 5.9; Oracle Database Advanced Queuing User's Guide, "QueueBrowser":
 *  "A client uses a QueueBrowser to view messages on a queue without removing them", and
 *  "Browsing Messages"). The connection is started before browsing: JMS 1.1 does not ask for
 *  it, but ActiveMQ's browser shows nothing on a stopped connection. */
class BrowserConformanceTest extends ConformanceTest {

    @ForEachProvider
    void browsingRemovesNothing(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "bkeep");
        send(s, q, "b1", "b2", "b3");
        QueueBrowser browser = s.createBrowser(q);
        assertTrue(ProducerConformanceTest.sameDestination(q, browser.getQueue()));
        assertNull(emptyToNull(browser.getMessageSelector()));
        assertEquals(Arrays.asList("b1", "b2", "b3"), browse(browser));
        browser.close();
        assertEquals(Arrays.asList("b1", "b2", "b3"), receiveTexts(s.createConsumer(q), 3));
    }

    @ForEachProvider
    void browsingAnEmptyQueue(Provider p) throws Exception {
        Session s = autoAck(started(p));
        QueueBrowser browser = s.createBrowser(queue(p, s, "bempty"));
        Enumeration<?> e = browser.getEnumeration();
        assertFalse(e.hasMoreElements());
    }

    @ForEachProvider
    void browserWithSelector(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "bselect");
        MessageProducer producer = s.createProducer(q);
        producer.send(ConsumerConformanceTest.props(s, "red", "color", "red"));
        producer.send(ConsumerConformanceTest.props(s, "blue", "color", "blue"));
        producer.send(ConsumerConformanceTest.props(s, "red again", "color", "red"));
        QueueBrowser browser = s.createBrowser(q, "color = 'red'");
        assertEquals("color = 'red'", browser.getMessageSelector());
        assertEquals(Arrays.asList("red", "red again"), browse(browser));
    }

    @ForEachProvider
    void browsingAfterConsumingShowsWhatIsLeft(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "bafter");
        send(s, q, "c1", "c2", "c3");
        MessageConsumer consumer = s.createConsumer(q);
        assertEquals("c1", receiveText(consumer));
        consumer.close();
        assertEquals(Arrays.asList("c2", "c3"), browse(s.createBrowser(q)));
    }

    /** Each enumeration looks at the queue anew (the guide, "QueueBrowser": "The first call
     *  to nextElement gets a snapshot of the queue"). */
    @ForEachProvider
    void eachEnumerationSeesTheQueueAsItIsThen(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "bagain");
        send(s, q, "first");
        QueueBrowser browser = s.createBrowser(q);
        assertEquals(Arrays.asList("first"), list(browser.getEnumeration()));
        send(s, q, "second");
        assertEquals(Arrays.asList("first", "second"), list(browser.getEnumeration()));
    }

    /** To remove a browsed message, "the session must create a QueueReceiver and use the
     *  JMSmesssageID as the selector" (the guide, "Browsing Messages"). */
    @ForEachProvider
    void aBrowsedMessageCanBeReceivedByItsId(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "bbyid");
        send(s, q, "skip", "take", "skip too");
        String id = null;
        QueueBrowser browser = s.createBrowser(q);
        for (Enumeration<?> e = browser.getEnumeration(); e.hasMoreElements(); ) {
            Message m = (Message) e.nextElement();
            if ("take".equals(text(m))) {
                id = m.getJMSMessageID();
            }
        }
        browser.close();
        MessageConsumer byId = s.createConsumer(q, "JMSMessageID = '" + id + "'");
        Message taken = byId.receive(WAIT);
        assertEquals("take", text(taken));
        assertEquals(id, taken.getJMSMessageID());
        byId.close();
        assertEquals(Arrays.asList("skip", "skip too"), browse(s.createBrowser(q)));
    }

    @ForEachProvider
    void invalidBrowserSelectorIsRefused(Provider p) throws Exception {
        Session s = autoAck(connect(p));
        Queue q = queue(p, s, "bbad");
        assertThrows(InvalidSelectorException.class, () -> s.createBrowser(q, "color = = 'x'"));
    }

    private static void send(Session s, Queue q, String... texts) throws JMSException {
        MessageProducer producer = s.createProducer(q);
        for (String t : texts) {
            producer.send(s.createTextMessage(t));
        }
        producer.close();
    }

    /** The texts one enumeration of the browser shows; the browser is closed after. */
    private static List<String> browse(QueueBrowser browser) throws JMSException {
        List<String> texts = list(browser.getEnumeration());
        browser.close();
        return texts;
    }

    private static List<String> list(Enumeration<?> e) throws JMSException {
        List<String> texts = new ArrayList<>();
        while (e.hasMoreElements()) {
            texts.add(text((Message) e.nextElement()));
        }
        return texts;
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
