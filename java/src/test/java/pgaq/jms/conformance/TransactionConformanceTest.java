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

/** Transacted sessions (JMS 1.1 4.4.7; Oracle Database Advanced Queuing User's Guide, "JMS
 *  Session": "commit() This method commits all messages performed in the transaction ...
 *  rollback() This method rolls back any messages accomplished in the transaction"). */
class TransactionConformanceTest extends ConformanceTest {

    @ForEachProvider
    void sendsAreInvisibleUntilCommit(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(p, tx, "txsend");
        MessageProducer producer = tx.createProducer(q);
        producer.send(tx.createTextMessage("t1"));
        producer.send(tx.createTextMessage("t2"));
        MessageConsumer other = autoAck(c).createConsumer(q);
        assertNothing(other);
        tx.commit();
        assertEquals(Arrays.asList("t1", "t2"), receiveTexts(other, 2));
    }

    @ForEachProvider
    void rollbackDiscardsSends(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(p, tx, "txdiscard");
        MessageProducer producer = tx.createProducer(q);
        producer.send(tx.createTextMessage("discarded"));
        tx.rollback();
        producer.send(tx.createTextMessage("kept"));
        tx.commit();
        assertEquals(Arrays.asList("kept"), drain(autoAck(c).createConsumer(q)));
    }

    /** JMS 1.1 4.4.7 and 3.4.7: a rolled back receive is delivered again, JMSRedelivered set
     *  and JMSXDeliveryCount counting the attempt. The guide, "Retry with Delay Interval": "If
     *  a transaction receiving a message from a queue/topic fails, then it is regarded as an
     *  unsuccessful attempt to remove the message." */
    @ForEachProvider
    void rollbackRedeliversReceivedMessages(Provider p) throws Exception {
        Session tx = started(p).createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(p, tx, "txredeliver");
        tx.createProducer(q).send(tx.createTextMessage("retry me"));
        tx.commit();
        MessageConsumer consumer = tx.createConsumer(q);
        Message first = consumer.receive(WAIT);
        assertEquals("retry me", text(first));
        assertFalse(first.getJMSRedelivered());
        tx.rollback();
        Message second = consumer.receive(WAIT);
        assertEquals("retry me", text(second));
        assertEquals(first.getJMSMessageID(), second.getJMSMessageID());
        assertTrue(second.getJMSRedelivered());
        assertEquals(2, second.getIntProperty("JMSXDeliveryCount"));
        tx.commit();
        assertNothing(consumer);
    }

    @ForEachProvider
    void commitRemovesReceivedMessages(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(p, tx, "txremove");
        tx.createProducer(q).send(tx.createTextMessage("consumed"));
        tx.commit();
        assertEquals("consumed", receiveText(tx.createConsumer(q)));
        tx.commit();
        c.close();
        assertNothing(autoAck(started(p)).createConsumer(q));
    }

    /** One transaction takes a message from one queue and sends one to another: both happen,
     *  or neither (JMS 1.1 4.4.7: "a transaction organizes a session's input message stream
     *  and output message stream into a series of atomic units"). */
    @ForEachProvider
    void receiveAndSendAreAtomic(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue in = queue(p, tx, "txin");
        Queue out = queue(p, tx, "txout");
        tx.createProducer(in).send(tx.createTextMessage("request"));
        tx.commit();
        MessageConsumer requests = tx.createConsumer(in);
        MessageProducer replies = tx.createProducer(out);
        Session observer = autoAck(c);
        MessageConsumer outside = observer.createConsumer(out);

        assertEquals("request", receiveText(requests));
        replies.send(tx.createTextMessage("reply 1"));
        tx.rollback();
        assertNothing(outside);

        assertEquals("request", receiveText(requests));
        replies.send(tx.createTextMessage("reply 2"));
        tx.commit();
        assertEquals("reply 2", receiveText(outside));
        assertNothing(outside);
        assertNothing(requests);
    }

    /** NON_PERSISTENT messages take part in transactions as persistent ones do: "If a JMS
     *  nonpersistent message is sent and received by a transacted session, then the effect of
     *  the JMS operation is only visible after the transacted session commits" (Oracle
     *  Database Advanced Queuing User's Guide, "Transaction Commits and Client
     *  Acknowledgments"; JMS 1.1 4.7: delivery mode and transactions are independent). */
    @ForEachProvider
    void nonPersistentMessagesFollowTheTransaction(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(p, tx, "txnonpers");
        MessageProducer producer = tx.createProducer(q);
        producer.setDeliveryMode(DeliveryMode.NON_PERSISTENT);
        producer.send(tx.createTextMessage("rolled back"));
        tx.rollback();
        producer.send(tx.createTextMessage("committed"));
        MessageConsumer outside = autoAck(c).createConsumer(q);
        assertNothing(outside);
        tx.commit();
        assertEquals("committed", receiveText(outside));
        assertNothing(outside);
        outside.close();

        producer.send(tx.createTextMessage("received twice"));
        tx.commit();
        MessageConsumer consumer = tx.createConsumer(q);
        assertEquals("received twice", receiveText(consumer));
        tx.rollback();
        Message again = consumer.receive(WAIT);
        assertEquals("received twice", text(again));
        assertEquals(DeliveryMode.NON_PERSISTENT, again.getJMSDeliveryMode());
        assertTrue(again.getJMSRedelivered());
        tx.commit();
        assertNothing(consumer);
    }

    @ForEachProvider
    void commitAndRollbackOfNonTransactedSessionAreIllegal(Provider p) throws Exception {
        Session s = autoAck(connect(p));
        assertThrows(IllegalStateException.class, s::commit);
        assertThrows(IllegalStateException.class, s::rollback);
    }

    /** JMS 1.1 Session.close: "Closing a transacted session must roll back the transaction in
     *  progress." */
    @ForEachProvider
    void closingTransactedSessionRollsBack(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(p, tx, "txclose");
        MessageProducer producer = tx.createProducer(q);
        producer.send(tx.createTextMessage("received, then rolled back"));
        tx.commit();
        assertEquals("received, then rolled back", receiveText(tx.createConsumer(q)));
        producer.send(tx.createTextMessage("never committed"));
        tx.close();
        Message m = autoAck(c).createConsumer(q).receive(WAIT);
        assertEquals("received, then rolled back", text(m));
        assertTrue(m.getJMSRedelivered());
        assertNothing(autoAck(c).createConsumer(q));
    }

    /** A message listener of a transacted session commits or rolls back what it received
     *  with the session (JMS 1.1 4.4.7; the guide, "Asynchronously Receiving Messages Using
     *  MessageListener": "The message listener can commit or terminate the receipt of the
     *  message"). */
    @ForEachProvider
    void listenerRollsBackAndCommits(Provider p) throws Exception {
        Connection c = connect(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = queue(p, tx, "txlisten");
        tx.createProducer(q).send(tx.createTextMessage("twice"));
        tx.commit();
        AtomicInteger calls = new AtomicInteger();
        BlockingQueue<Boolean> redelivered = new LinkedBlockingQueue<>();
        tx.createConsumer(q).setMessageListener(m -> {
            try {
                redelivered.add(m.getJMSRedelivered());
                if (calls.incrementAndGet() == 1) {
                    tx.rollback();
                } else {
                    tx.commit();
                }
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        c.start();
        assertEquals(Boolean.FALSE, redelivered.poll(WAIT, TimeUnit.MILLISECONDS));
        assertEquals(Boolean.TRUE, redelivered.poll(WAIT, TimeUnit.MILLISECONDS));
        c.close();
        assertNothing(autoAck(started(p)).createConsumer(q));
    }

    /** A message whose receive is rolled back more often than the destination allows leaves it
     *  for an exception (dead letter) queue. Oracle: "If the number of failed attempts to
     *  remove a message exceeds this maximum, then the message is moved to an exception queue"
     *  (Oracle Database Advanced Queuing User's Guide, "Retry with Delay Interval"), the
     *  queue table's AQ$_&lt;queue table&gt;_E unless the message names one ("Exception
     *  Queues"); JMS 1.1 leaves this to the provider (ActiveMQ: maximumRedeliveries and a
     *  dead letter queue). With a maximum of 2, the message is delivered 3 times. */
    @ForEachProvider
    void messagePastMaxRetriesMovesToExceptionQueue(Provider p) throws Exception {
        Connection c = started(p);
        Session tx = c.createSession(true, Session.SESSION_TRANSACTED);
        Queue q = p.queueWithMaxRetries(tx, unique("retries"), 2);
        tx.createProducer(q).send(tx.createTextMessage("poison"));
        tx.commit();
        MessageConsumer consumer = tx.createConsumer(q);
        String id = null;
        for (int attempt = 1; attempt <= 3; attempt++) {
            Message m = consumer.receive(WAIT);
            assertEquals("poison", text(m), "attempt " + attempt);
            assertEquals(attempt > 1, m.getJMSRedelivered(), "attempt " + attempt);
            id = m.getJMSMessageID();
            tx.rollback();
        }
        assertNothing(consumer);
        consumer.close();
        Session s = autoAck(c);
        Message dead = s.createConsumer(p.exceptionQueue(s, q)).receive(WAIT);
        assertEquals("poison", text(dead));
        if (p.isPgaq()) {
            // AQ moves the message itself ("Exception Queues": "Messages are moved to the
            // exception queue"): it keeps its message identifier
            assertEquals(id, dead.getJMSMessageID());
        }
    }
}
