package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.jms.Connection;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicConnection;
import javax.jms.TopicConnectionFactory;
import javax.jms.TopicPublisher;
import javax.jms.TopicSession;
import javax.jms.TopicSubscriber;

/** Publish/subscribe: non-durable and durable subscribers, noLocal, unsubscribe (JMS 1.1
 *  chapter 6; Oracle Database Advanced Queuing User's Guide, "JMS Publish/Subscribe Model
 *  Features", "DurableSubscriber"). */
class TopicConformanceTest extends ConformanceTest {

    @ForEachProvider
    void everySubscriberGetsACopy(Provider p) throws Exception {
        Connection c = started(p);
        Session s1 = autoAck(c);
        Session s2 = autoAck(c);
        Topic t = topic(p, s1, "teach");
        MessageConsumer sub1 = s1.createConsumer(t);
        MessageConsumer sub2 = s2.createConsumer(t);
        Session publisher = autoAck(connect(p));
        publisher.createProducer(t).send(publisher.createTextMessage("news"));
        assertEquals("news", receiveText(sub1));
        assertEquals("news", receiveText(sub2));
        assertNothing(sub1);
        assertNothing(sub2);
    }

    /** JMS 1.1 6.11: a non-durable subscriber "receives only messages that are published while
     *  it is active". (A witness subscriber is there throughout, so that every publication has
     *  a subscriber: see {@link #publishingWithoutAnySubscriber}.) */
    @ForEachProvider
    void nonDurableSubscriberGetsOnlyLaterMessages(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Topic t = topic(p, s, "tlater");
        MessageConsumer witness = autoAck(c).createConsumer(t);
        MessageProducer publisher = s.createProducer(t);
        publisher.send(s.createTextMessage("before"));
        MessageConsumer sub = s.createConsumer(t);
        publisher.send(s.createTextMessage("after"));
        assertEquals("after", receiveText(sub));
        assertNothing(sub);
        sub.close();
        publisher.send(s.createTextMessage("while closed"));
        MessageConsumer again = s.createConsumer(t);
        assertNothing(again);
        assertEquals(Arrays.asList("before", "after", "while closed"), receiveTexts(witness, 3));
    }

    /** Publishing to a topic that has no subscriber. JMS 1.1 6.11: only subscribers active (or
     *  durable) when a message is published get it; with none the message is simply not
     *  delivered, and a later subscriber never sees it (ActiveMQ). pgaq keeps what AQ does: an
     *  enqueue into a multi-consumer queue that yields no recipient fails with ORA-24033 ("no
     *  recipients for message"), reported as a JMSException, as pgaq's Python provider does
     *  (tests/integration/test_jms_subscription_timing.py and test_jms_runtime.py: "AQ's
     *  ORA-24033, as Oracle JMS reports it"). NOTE: this difference comes from AQ, not from
     *  the Oracle JMS guide's sections, which do not mention it. */
    @ForEachProvider
    void publishingWithoutAnySubscriber(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Topic t = topic(p, s, "tnobody");
        MessageProducer publisher = s.createProducer(t);
        if (p.isPgaq()) {
            JMSException e = assertThrows(JMSException.class,
                    () -> publisher.send(s.createTextMessage("to nobody")));
            assertEquals("ORA-24033", e.getErrorCode(), String.valueOf(e));
        } else {
            publisher.send(s.createTextMessage("to nobody"));
        }
        MessageConsumer later = s.createConsumer(t);
        assertNothing(later);
        publisher.send(s.createTextMessage("to somebody"));
        assertEquals("to somebody", receiveText(later));
    }

    @ForEachProvider
    void subscriberSelector(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Topic t = topic(p, s, "tselect");
        MessageConsumer reds = s.createConsumer(t, "color = 'red'");
        MessageConsumer all = s.createConsumer(t);
        MessageProducer publisher = s.createProducer(t);
        publisher.send(ConsumerConformanceTest.props(s, "r1", "color", "red"));
        publisher.send(ConsumerConformanceTest.props(s, "b1", "color", "blue"));
        publisher.send(ConsumerConformanceTest.props(s, "r2", "color", "red"));
        assertEquals(Arrays.asList("r1", "r2"), receiveTexts(reds, 2));
        assertNothing(reds);
        assertEquals(Arrays.asList("r1", "b1", "r2"), receiveTexts(all, 3));
    }

    /** Messages published in a transaction reach the subscribers at commit, not before, and
     *  never after a rollback. */
    @ForEachProvider
    void transactedPublishIsDeliveredAtCommit(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Topic t = topic(p, tx, "ttx");
        MessageConsumer sub = autoAck(c).createConsumer(t);
        MessageProducer publisher = tx.createProducer(t);
        publisher.send(tx.createTextMessage("rolled back"));
        tx.rollback();
        publisher.send(tx.createTextMessage("committed"));
        assertNothing(sub);
        tx.commit();
        assertEquals("committed", receiveText(sub));
        assertNothing(sub);
    }

    /** JMS 1.1 6.11.1 / Session.createConsumer: with noLocal, "messages published by its own
     *  connection" are not delivered. */
    @ForEachProvider
    void noLocalSubscriberIgnoresItsConnectionsMessages(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        Topic t = topic(p, s, "tnolocal");
        MessageConsumer remoteOnly = s.createConsumer(t, null, true);
        MessageConsumer everything = autoAck(c).createConsumer(t, null, false);
        Session local = autoAck(c);
        local.createProducer(t).send(local.createTextMessage("local"));
        Session remote = autoAck(connect(p));
        remote.createProducer(t).send(remote.createTextMessage("remote"));
        assertEquals("remote", receiveText(remoteOnly));
        assertNothing(remoteOnly);
        List<String> all = receiveTexts(everything, 2);
        Collections.sort(all);
        assertEquals(Arrays.asList("local", "remote"), all);
    }

    /** JMS 1.1 6.11.1 (the guide, "Setting Up JMS Publish/Subscribe Operations": durable
     *  subscribers): a durable subscription keeps what is published while no subscriber of it
     *  is active. */
    @ForEachProvider
    void durableSubscriptionKeepsMessagesWhileInactive(Provider p) throws Exception {
        String clientId = unique("cid");
        String name = subscriptionName();
        Connection c = connect(p, clientId);
        Session s = autoAck(c);
        Topic t = topic(p, s, "tdurable");
        s.createDurableSubscriber(t, name).close();
        c.close();
        Session publisher = autoAck(connect(p));
        MessageProducer producer = publisher.createProducer(t);
        producer.send(publisher.createTextMessage("while away 1"));
        producer.send(publisher.createTextMessage("while away 2"));
        Connection back = connect(p, clientId);
        back.start();
        Session s2 = autoAck(back);
        TopicSubscriber sub = s2.createDurableSubscriber(t, name);
        assertEquals(Arrays.asList("while away 1", "while away 2"), receiveTexts(sub, 2));
        assertNothing(sub);
        sub.close();
        s2.unsubscribe(name);
    }

    @ForEachProvider
    void durableSubscriberSelectorFiltersWhatIsKept(Provider p) throws Exception {
        String name = subscriptionName();
        Connection c = connect(p, unique("cid"));
        Session s = autoAck(c);
        Topic t = topic(p, s, "tdursel");
        TopicSubscriber sub = s.createDurableSubscriber(t, name, "color = 'red'", false);
        assertEquals("color = 'red'", sub.getMessageSelector());
        sub.close();
        Session publisher = autoAck(connect(p));
        MessageConsumer witness = publisher.createConsumer(t); // every publication has a subscriber
        MessageProducer producer = publisher.createProducer(t);
        producer.send(ConsumerConformanceTest.props(publisher, "red", "color", "red"));
        producer.send(ConsumerConformanceTest.props(publisher, "blue", "color", "blue"));
        witness.close();
        c.start();
        TopicSubscriber again = s.createDurableSubscriber(t, name, "color = 'red'", false);
        assertEquals("red", receiveText(again));
        assertNothing(again);
        again.close();
        s.unsubscribe(name);
    }

    /** JMS 1.1 Session.unsubscribe deletes the subscription: what is published afterwards is
     *  not kept for the name, and a new subscription of that name starts empty. */
    @ForEachProvider
    void unsubscribeEndsTheSubscription(Provider p) throws Exception {
        String name = subscriptionName();
        Connection c = connect(p, unique("cid"));
        Session s = autoAck(c);
        Topic t = topic(p, s, "tunsub");
        s.createDurableSubscriber(t, name).close();
        Session publisher = autoAck(connect(p));
        MessageConsumer witness = publisher.createConsumer(t); // every publication has a subscriber
        MessageProducer producer = publisher.createProducer(t);
        producer.send(publisher.createTextMessage("dropped with the subscription"));
        s.unsubscribe(name);
        producer.send(publisher.createTextMessage("published while unsubscribed"));
        c.start();
        TopicSubscriber fresh = s.createDurableSubscriber(t, name);
        assertNothing(fresh);
        producer.send(publisher.createTextMessage("published to the new subscription"));
        assertEquals("published to the new subscription", receiveText(fresh));
        witness.close();
        fresh.close();
        s.unsubscribe(name);
    }

    /** JMS 1.1 Session.unsubscribe: "It is erroneous for a client to delete a durable
     *  subscription while there is an active MessageConsumer or TopicSubscriber for the
     *  subscription". */
    @ForEachProvider
    void unsubscribeOfAnActiveSubscriptionIsRefused(Provider p) throws Exception {
        String name = subscriptionName();
        Connection owner = connect(p, unique("cid"));
        owner.start();
        Session s = autoAck(owner);
        Topic t = topic(p, s, "tactive");
        TopicSubscriber sub = s.createDurableSubscriber(t, name);
        assertThrows(JMSException.class, () -> s.unsubscribe(name));
        // it is still there and still delivers
        Session publisher = autoAck(connect(p));
        publisher.createProducer(t).send(publisher.createTextMessage("still subscribed"));
        assertEquals("still subscribed", receiveText(sub));
        sub.close();
        s.unsubscribe(name);
    }

    /** JMS 1.1 Session.unsubscribe: "InvalidDestinationException - if an invalid subscription
     *  name is specified". */
    @ForEachProvider
    void unsubscribeOfAnUnknownNameIsRefused(Provider p) throws Exception {
        Session s = autoAck(connect(p, unique("cid")));
        assertThrows(InvalidDestinationException.class, () -> s.unsubscribe(subscriptionName()));
    }

    /** A durable subscriber re-created with another selector. JMS 1.1 6.11.1: "Changing a
     *  durable subscriber is equivalent to unsubscribing (deleting) the old one and creating a
     *  new one", so what the old subscription held is gone. Oracle differs: "If two
     *  subscribers use the same name and are created against the same topic, but the selector
     *  used for each subscriber is different, then the underlying Oracle Database Advanced
     *  Queuing subscription is altered using the internal DBMS_AQJMS.ALTER_SUBSCRIBER() call"
     *  (Oracle Database Advanced Queuing User's Guide, "DurableSubscriber"): the subscription
     *  stays, with the messages it holds, and the new selector applies to what is published
     *  next. */
    @ForEachProvider
    void durableSubscriberWithAChangedSelector(Provider p) throws Exception {
        String name = subscriptionName();
        Connection c = connect(p, unique("cid"));
        Session s = autoAck(c);
        Topic t = topic(p, s, "tchange");
        s.createDurableSubscriber(t, name, "color = 'red'", false).close();
        Session publisher = autoAck(connect(p));
        MessageConsumer witness = publisher.createConsumer(t); // every publication has a subscriber
        MessageProducer producer = publisher.createProducer(t);
        producer.send(ConsumerConformanceTest.props(publisher, "red before", "color", "red"));
        producer.send(ConsumerConformanceTest.props(publisher, "blue before", "color", "blue"));
        TopicSubscriber changed = s.createDurableSubscriber(t, name, "color = 'blue'", false);
        producer.send(ConsumerConformanceTest.props(publisher, "red after", "color", "red"));
        producer.send(ConsumerConformanceTest.props(publisher, "blue after", "color", "blue"));
        witness.close();
        c.start();
        List<String> expected = p.isPgaq()
                ? Arrays.asList("red before", "blue after")  // altered: the held message stays
                : Arrays.asList("blue after");               // replaced: a new, empty subscription
        assertEquals(expected, receiveTexts(changed, expected.size()));
        assertNothing(changed);
        changed.close();
        s.unsubscribe(name);
    }

    /** noLocal on a durable subscription (the guide, "Java EE Compliance", lists "The noLocal
     *  option for durable subscribers"). */
    @ForEachProvider
    void durableNoLocalSubscriber(Provider p) throws Exception {
        String name = subscriptionName();
        Connection c = connect(p, unique("cid"));
        c.start();
        Session s = autoAck(c);
        Topic t = topic(p, s, "tdurlocal");
        TopicSubscriber sub = s.createDurableSubscriber(t, name, null, true);
        assertTrue(sub.getNoLocal());
        Session local = autoAck(c);
        local.createProducer(t).send(local.createTextMessage("local"));
        Session remote = autoAck(connect(p));
        remote.createProducer(t).send(remote.createTextMessage("remote"));
        assertEquals("remote", receiveText(sub));
        assertNothing(sub);
        sub.close();
        s.unsubscribe(name);
    }

    @ForEachProvider
    void durableSubscriberWithListener(Provider p) throws Exception {
        String name = subscriptionName();
        Connection c = connect(p, unique("cid"));
        Session s = autoAck(c);
        Topic t = topic(p, s, "tdurlsn");
        TopicSubscriber sub = s.createDurableSubscriber(t, name);
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        sub.setMessageListener(m -> {
            try {
                got.add(text(m));
            } catch (JMSException e) {
                got.add("error: " + e);
            }
        });
        c.start();
        Session publisher = autoAck(connect(p));
        publisher.createProducer(t).send(publisher.createTextMessage("to the listener"));
        assertEquals("to the listener", got.poll(WAIT, TimeUnit.MILLISECONDS));
        sub.close();
        s.unsubscribe(name);
    }

    /** JMS 1.1 Session.createConsumer / createDurableSubscriber: "InvalidSelectorException -
     *  if the message selector is invalid"; nothing is subscribed. */
    @ForEachProvider
    void invalidSubscriberSelectorsAreRefused(Provider p) throws Exception {
        String name = subscriptionName();
        Session s = autoAck(connect(p, unique("cid")));
        Topic t = topic(p, s, "tbadsel");
        assertThrows(InvalidSelectorException.class, () -> s.createConsumer(t, "color = "));
        assertThrows(InvalidSelectorException.class,
                () -> s.createDurableSubscriber(t, name, "AND color = 'red'", false));
        assertThrows(InvalidDestinationException.class, () -> s.unsubscribe(name));
    }

    /** The pub/sub domain's own interfaces: TopicConnectionFactory, TopicSession,
     *  TopicPublisher, TopicSubscriber (JMS 1.1 chapter 6; the guide, "TopicPublisher"). */
    @ForEachProvider
    void topicDomainInterfaces(Provider p) throws Exception {
        TopicConnectionFactory f = (TopicConnectionFactory) p.connectionFactory();
        TopicConnection tc = track(p, f.createTopicConnection());
        TopicSession ts = tc.createTopicSession(false, Session.AUTO_ACKNOWLEDGE);
        Topic t = topic(p, ts, "tdomain");
        TopicSubscriber sub = ts.createSubscriber(t);
        assertFalse(sub.getNoLocal());
        assertTrue(ProducerConformanceTest.sameDestination(t, sub.getTopic()));
        TopicPublisher pub = ts.createPublisher(t);
        assertTrue(ProducerConformanceTest.sameDestination(t, pub.getTopic()));
        tc.start();
        TextMessage m = ts.createTextMessage("published");
        pub.publish(m);
        assertTrue(ProducerConformanceTest.sameDestination(t, m.getJMSDestination()));
        assertEquals("published", receiveText(sub));
        TopicPublisher anonymous = ts.createPublisher(null);
        anonymous.publish(t, ts.createTextMessage("anonymous"));
        assertEquals("anonymous", receiveText(sub));
    }

    private static String subscriptionName() {
        return unique("sub").toUpperCase(Locale.ROOT);
    }
}
