package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.jms.Connection;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TemporaryQueue;
import javax.jms.TemporaryTopic;
import javax.jms.TextMessage;

/** Temporary queues and topics (JMS 1.1 4.4.3; the guide, "Java EE Compliance", lists
 *  "Temporary queues and topics"). */
class TemporaryConformanceTest extends ConformanceTest {

    /** Request/reply: the request names a temporary queue as JMSReplyTo; a responder on
     *  another connection answers there, correlating with the request's JMSMessageID. */
    @ForEachProvider
    void requestReplyOverATemporaryQueue(Provider p) throws Exception {
        Connection requester = started(p);
        Session rs = autoAck(requester);
        Queue requests = queue(p, rs, "trequests");
        TemporaryQueue replies = rs.createTemporaryQueue();

        Connection responder = connect(p);
        Session ss = autoAck(responder);
        MessageProducer answer = ss.createProducer(null);
        BlockingQueue<Object> seen = new LinkedBlockingQueue<>();
        ss.createConsumer(requests).setMessageListener(m -> {
            try {
                Destination replyTo = m.getJMSReplyTo();
                seen.add(replyTo);
                TextMessage reply = ss.createTextMessage("answer to " + text(m));
                reply.setJMSCorrelationID(m.getJMSMessageID());
                answer.send(replyTo, reply);
            } catch (JMSException e) {
                seen.add(e);
            }
        });
        responder.start();

        TextMessage request = rs.createTextMessage("question");
        request.setJMSReplyTo(replies);
        rs.createProducer(requests).send(request);
        Message reply = rs.createConsumer(replies).receive(WAIT);
        assertEquals("answer to question", text(reply));
        assertEquals(request.getJMSMessageID(), reply.getJMSCorrelationID());
        Object replyTo = seen.poll(WAIT, TimeUnit.MILLISECONDS);
        assertTrue(replyTo instanceof TemporaryQueue, "JMSReplyTo as received: " + replyTo);
        assertEquals(replies.getQueueName(), ((TemporaryQueue) replyTo).getQueueName());
    }

    @ForEachProvider
    void temporaryTopicDeliversToItsSubscribers(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        TemporaryTopic t = s.createTemporaryTopic();
        MessageConsumer sub1 = s.createConsumer(t);
        MessageConsumer sub2 = autoAck(c).createConsumer(t);
        Session other = autoAck(connect(p));
        TextMessage m = other.createTextMessage("to a temporary topic");
        m.setJMSReplyTo(t);
        other.createProducer(t).send(m);
        Message got = sub1.receive(WAIT);
        assertEquals("to a temporary topic", text(got));
        assertTrue(got.getJMSReplyTo() instanceof TemporaryTopic, "JMSReplyTo " + got.getJMSReplyTo());
        assertEquals("to a temporary topic", receiveText(sub2));
    }

    @ForEachProvider
    void temporaryQueuesAreDistinct(Provider p) throws Exception {
        Connection c = started(p);
        Session s = autoAck(c);
        TemporaryQueue a = s.createTemporaryQueue();
        TemporaryQueue b = autoAck(c).createTemporaryQueue();
        assertNotEquals(a.getQueueName(), b.getQueueName());
        s.createProducer(a).send(s.createTextMessage("for a"));
        assertNothing(s.createConsumer(b));
        assertEquals("for a", receiveText(s.createConsumer(a)));
    }

    /** JMS 1.1 4.4.3: "Each temporary destination is unique and cannot be copied"; a consumer
     *  of it can only be made by its own connection ("its connection ... is the only one whose
     *  sessions are allowed to create message consumers for it"). */
    @ForEachProvider
    void anotherConnectionCannotConsumeATemporary(Provider p) throws Exception {
        Session owner = autoAck(started(p));
        TemporaryQueue tq = owner.createTemporaryQueue();
        Session stranger = autoAck(started(p));
        assertThrows(JMSException.class, () -> stranger.createConsumer(tq));
        // it may send there, though
        stranger.createProducer(tq).send(stranger.createTextMessage("from a stranger"));
        assertEquals("from a stranger", receiveText(owner.createConsumer(tq)));
    }

    /** JMS 1.1 TemporaryQueue.delete: "If there are existing receivers still using it, a
     *  JMSException will be thrown." */
    @ForEachProvider
    void deleteWhileConsumedIsRefused(Provider p) throws Exception {
        Session s = autoAck(started(p));
        TemporaryQueue tq = s.createTemporaryQueue();
        MessageConsumer consumer = s.createConsumer(tq);
        assertThrows(JMSException.class, tq::delete);
        // still usable
        s.createProducer(tq).send(s.createTextMessage("still here"));
        assertEquals("still here", receiveText(consumer));
        consumer.close();
        tq.delete();
    }

    /** A deleted temporary queue takes no more messages. */
    @ForEachProvider
    void sendingToADeletedTemporaryFails(Provider p) throws Exception {
        Session s = autoAck(started(p));
        TemporaryQueue tq = s.createTemporaryQueue();
        MessageProducer producer = s.createProducer(null);
        producer.send(tq, s.createTextMessage("before delete"));
        tq.delete();
        assertThrows(JMSException.class, () -> producer.send(tq, s.createTextMessage("after delete")));
    }
}
