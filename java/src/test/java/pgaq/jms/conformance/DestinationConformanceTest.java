package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import javax.jms.InvalidDestinationException;
import javax.jms.MessageConsumer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.Topic;

/** What a session does with a destination's name alone (JMS 1.1 Session.createQueue:
 *  "Creates a queue identity given a Queue name ... This facility is provided for the rare
 *  cases where clients need to dynamically manipulate queue identity"; its physical creation
 *  is left to the provider's administration). */
class DestinationConformanceTest extends ConformanceTest {

    /** ActiveMQ makes a destination the first time it is used. Oracle's must exist
     *  beforehand: "An administrator creates the single-consumer queues with the createQueue
     *  method in AQjmsSession ... Clients obtain a handle to a previously created queue"
     *  (Oracle Database Advanced Queuing User's Guide, "JMS Point-to-Point Model Features"),
     *  and "A client can obtain a handle to a previously-created topic" ("JMS Publish/Subscribe
     *  Overview"): pgaq's session refuses a name that is no queue (InvalidDestinationException,
     *  JMS 1.1's exception for "an invalid queue"). */
    @ForEachProvider
    void destinationsMustExistBeforehandOnOracle(Provider p) throws Exception {
        Session s = autoAck(started(p));
        String queueName = p.destinationName(unique("nosuchq"));
        String topicName = p.destinationName(unique("nosucht"));
        if (p.isPgaq()) {
            assertThrows(InvalidDestinationException.class, () -> s.createQueue(queueName));
            assertThrows(InvalidDestinationException.class, () -> s.createTopic(topicName));
        } else {
            Queue q = s.createQueue(queueName);
            s.createProducer(q).send(s.createTextMessage("made on first use"));
            assertEquals("made on first use", receiveText(s.createConsumer(q)));
        }
    }

    /** A name of a queue names no topic. Oracle: "A Destination object can be a Queue or a
     *  Topic. In Oracle Database Advanced Queuing, these map to a schema.queue at a specific
     *  database. Queue maps to a single-consumer queue, and Topic maps to a multiconsumer
     *  queue" (Oracle Database Advanced Queuing User's Guide, "JMS Destination"), so pgaq
     *  refuses a Topic of a single-consumer queue's name (and a Queue of a topic's). ActiveMQ
     *  keeps queues and topics apart: the same name is another destination. */
    @ForEachProvider
    void aQueueNameIsNoTopic(Provider p) throws Exception {
        Session s = autoAck(started(p));
        String qName = unique("qnotopic");
        Queue q = p.queue(s, qName);
        String tName = unique("tnoqueue");
        Topic t = p.topic(s, tName);
        if (p.isPgaq()) {
            assertThrows(InvalidDestinationException.class,
                    () -> s.createTopic(p.destinationName(qName)));
            assertThrows(InvalidDestinationException.class,
                    () -> s.createQueue(p.destinationName(tName)));
        } else {
            Topic sameName = s.createTopic(p.destinationName(qName));
            MessageConsumer queueConsumer = s.createConsumer(q);
            MessageConsumer topicConsumer = s.createConsumer(sameName);
            s.createProducer(sameName).send(s.createTextMessage("to the topic"));
            assertEquals("to the topic", receiveText(topicConsumer));
            assertNothing(queueConsumer);
            queueConsumer.close();
            topicConsumer.close();
        }
        // each works as what it was made as
        MessageConsumer sub = s.createConsumer(t);
        s.createProducer(t).send(s.createTextMessage("heard"));
        assertEquals("heard", receiveText(sub));
        s.createProducer(q).send(s.createTextMessage("queued"));
        assertEquals("queued", receiveText(s.createConsumer(q)));
    }

    /** A destination named again by the session is the same destination: what is sent to one
     *  handle is received from the other. */
    @ForEachProvider
    void aDestinationNamedAgainIsTheSame(Provider p) throws Exception {
        Session s = autoAck(started(p));
        String name = unique("again");
        Queue first = p.queue(s, name);
        Queue second = s.createQueue(p.destinationName(name));
        assertTrue(ProducerConformanceTest.sameDestination(first, second), first + " / " + second);
        s.createProducer(first).send(s.createTextMessage("one queue"));
        assertEquals("one queue", receiveText(s.createConsumer(second)));
    }
}
