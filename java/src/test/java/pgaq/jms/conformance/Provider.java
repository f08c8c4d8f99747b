package pgaq.jms.conformance;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.Topic;

/**
 * A JMS provider the conformance suite runs against: its connection factory, and the
 * administration JMS leaves to each provider (making a destination exist before a session
 * names it). Every test runs once per provider of {@link #all()}: the embedded ActiveMQ
 * broker always, pgaq whenever the system property {@code pgaq.jdbc.url} is set.
 *
 * <p>Tests are written against javax.jms only; where Oracle's documentation describes a
 * behaviour that differs from JMS 1.1 (or from what ActiveMQ does), the test says so and
 * branches on {@link #isPgaq()}.
 */
public abstract class Provider {
    private static final AtomicLong COUNTER = new AtomicLong();
    private static final String RUN = Long.toString(
            ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36), 36);
    private static volatile List<Provider> providers;

    private final String name;

    protected Provider(String name) {
        this.name = name;
    }

    /** The providers every test runs against: ActiveMQ, and pgaq when pgaq.jdbc.url is set;
     *  the same ones until the test plan ends ({@link #endAll}). */
    public static synchronized List<Provider> all() {
        if (providers == null) {
            List<Provider> list = new ArrayList<>();
            list.add(new ActiveMqProvider());
            String url = System.getProperty("pgaq.jdbc.url", "");
            if (!url.isEmpty()) {
                list.add(new PgaqProvider(url));
            }
            providers = Collections.unmodifiableList(list);
        }
        return providers;
    }

    /** Ends the providers (EmbeddedBrokers, as the test plan ends): a later plan in the same
     *  JVM (java/build serve) makes new ones, for the database of its pgaq.jdbc.url. */
    static synchronized void endAll() {
        List<Provider> ended = providers;
        providers = null;
        if (ended != null) {
            for (Provider p : ended) {
                p.end();
            }
        }
    }

    /** Releases what the provider holds (its connections, its broker). */
    protected void end() {
    }

    /** A name no other test (in this run or an earlier one) uses: lower case letters,
     *  digits and underscores, short enough for an AQ queue table name with suffixes. */
    public static String uniqueName(String prefix) {
        return "jc_" + prefix + "_" + RUN + "_" + COUNTER.incrementAndGet();
    }

    public final String name() {
        return name;
    }

    /** True for pgaq: the branch a test takes where Oracle documents another behaviour. */
    public abstract boolean isPgaq();

    public abstract ConnectionFactory connectionFactory() throws JMSException;

    /** The name {@code Session.createQueue} / {@code createTopic} take for the destination
     *  {@code name} of {@link #queue} / {@link #topic} (pgaq: Oracle's "OWNER.NAME"), with
     *  nothing made: for tests of what a session does with a name alone. */
    public abstract String destinationName(String name);

    /** A queue (point-to-point, one consumer per message) named {@code name}, made to exist
     *  first if it does not; what {@code session.createQueue} returns for it. */
    public abstract Queue queue(Session session, String name) throws JMSException;

    /** A topic (publish/subscribe) named {@code name}, made to exist first if it does not. */
    public abstract Topic topic(Session session, String name) throws JMSException;

    /** A queue whose messages are received most urgent first (same urgency: FIFO). In
     *  Oracle the order is the queue table's (Oracle Database Advanced Queuing User's Guide,
     *  "Priority and Ordering of Messages": "The ordering method is specified when the queue
     *  table for the queue or topic is created"), so pgaq makes it with a PRIORITY sort list;
     *  ActiveMQ orders a queue by priority when its destination policy says so. */
    public abstract Queue priorityQueue(Session session, String name) throws JMSException;

    /** A queue whose messages move to {@link #exceptionQueue} once a receive of them has been
     *  rolled back more than {@code maxRetries} times (Oracle: the queue's max_retries, the
     *  guide's "Retry with Delay Interval"; ActiveMQ: the redelivery policy's maximum
     *  redeliveries and the broker's dead letter queue). */
    public abstract Queue queueWithMaxRetries(Session session, String name, int maxRetries)
            throws JMSException;

    /** The queue where undeliverable messages of {@code queue} (made by
     *  {@link #queueWithMaxRetries}) go, ready to be received from. pgaq: the queue table's
     *  default exception queue AQ$_&lt;queue table&gt;_E (the guide, "Exception Queues"). */
    public abstract Queue exceptionQueue(Session session, Queue queue) throws JMSException;

    /** Forget (and, where the provider allows, drop) what the last test made. */
    public void cleanUp() {
    }

    @Override
    public String toString() {
        return name;
    }
}
