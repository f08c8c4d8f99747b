package pgaq.jms.conformance;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Collections;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.Topic;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.RedeliveryPolicy;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.region.policy.IndividualDeadLetterStrategy;
import org.apache.activemq.broker.region.policy.PolicyEntry;
import org.apache.activemq.broker.region.policy.PolicyMap;
import org.apache.activemq.broker.region.policy.RedeliveryPolicyMap;
import org.apache.activemq.command.ActiveMQQueue;

/**
 * The reference provider: an ActiveMQ 5.17 broker embedded in this JVM (non-persistent: its
 * store is memory, its temporary files in a directory of java.io.tmpdir), reached over
 * {@code vm://}. Destinations need no administration. Queues named {@code prio.*} are
 * ordered by priority, dead letters of a queue X go to {@code DLQ.X}; redeliveries come
 * at once (no redelivery delay, as pgaq's default retry_delay 0).
 */
final class ActiveMqProvider extends Provider {
    private static final String BROKER = "jconf";
    private static final String DLQ_PREFIX = "DLQ.";
    private static BrokerService broker;

    private final ActiveMQConnectionFactory factory;

    ActiveMqProvider() {
        super("activemq");
        startBroker();
        factory = new ActiveMQConnectionFactory("vm://" + BROKER + "?create=false");
        factory.setTrustAllPackages(true); // ObjectMessage bodies of the test's own classes
        // no advisory watching: with it, a new connection learns of other connections'
        // temporary destinations asynchronously and refuses to send to one it has not heard
        // of yet ("Cannot publish to a deleted Destination"); without it the broker decides
        factory.setWatchTopicAdvisories(false);
        RedeliveryPolicy redelivery = factory.getRedeliveryPolicy();
        redelivery.setInitialRedeliveryDelay(0);
        redelivery.setRedeliveryDelay(0);
    }

    private static synchronized void startBroker() {
        if (broker != null) {
            return;
        }
        try {
            File dir = Files.createTempDirectory("jconf-activemq").toFile();
            BrokerService b = new BrokerService();
            b.setBrokerName(BROKER);
            b.setPersistent(false);
            b.setUseJmx(false);
            b.setSchedulerSupport(false);
            b.setUseShutdownHook(false); // EmbeddedBrokers stops it
            b.setDataDirectoryFile(dir);
            b.setTmpDataDirectory(new File(dir, "tmp"));
            IndividualDeadLetterStrategy dead = new IndividualDeadLetterStrategy();
            dead.setQueuePrefix(DLQ_PREFIX);
            dead.setUseQueueForQueueMessages(true);
            PolicyEntry all = new PolicyEntry();
            all.setDeadLetterStrategy(dead);
            PolicyEntry prio = new PolicyEntry();
            prio.setQueue("prio.>");
            prio.setPrioritizedMessages(true);
            prio.setDeadLetterStrategy(dead);
            PolicyMap policies = new PolicyMap();
            policies.setDefaultEntry(all);
            policies.setPolicyEntries(Collections.singletonList(prio));
            b.setDestinationPolicy(policies);
            b.start();
            b.waitUntilStarted();
            broker = b;
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the broker's directory", e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the embedded ActiveMQ broker", e);
        }
    }

    @Override
    protected void end() {
        stopBroker();
    }

    /** Stops the broker (at the end of the test plan) and removes its directory. */
    static synchronized void stopBroker() {
        if (broker == null) {
            return;
        }
        try {
            broker.stop();
            broker.waitUntilStopped();
        } catch (Exception e) {
            // the test plan ends: nothing to do about a broker that does not stop cleanly
        }
        deleteTree(broker.getDataDirectoryFile());
        broker = null;
    }

    private static void deleteTree(File f) {
        File[] children = f.listFiles();
        if (children != null) {
            for (File child : children) {
                deleteTree(child);
            }
        }
        if (!f.delete() && f.exists()) {
            f.deleteOnExit();
        }
    }

    @Override
    public boolean isPgaq() {
        return false;
    }

    @Override
    public ConnectionFactory connectionFactory() {
        return factory;
    }

    @Override
    public String destinationName(String name) {
        return name;
    }

    @Override
    public Queue queue(Session session, String name) throws JMSException {
        return session.createQueue(name);
    }

    @Override
    public Topic topic(Session session, String name) throws JMSException {
        return session.createTopic(name);
    }

    @Override
    public Queue priorityQueue(Session session, String name) throws JMSException {
        return session.createQueue("prio." + name);
    }

    @Override
    public Queue queueWithMaxRetries(Session session, String name, int maxRetries)
            throws JMSException {
        RedeliveryPolicy policy = factory.getRedeliveryPolicy().copy();
        policy.setMaximumRedeliveries(maxRetries);
        RedeliveryPolicyMap map = factory.getRedeliveryPolicyMap();
        map.put(new ActiveMQQueue(name), policy);
        return session.createQueue(name);
    }

    @Override
    public Queue exceptionQueue(Session session, Queue queue) throws JMSException {
        return session.createQueue(DLQ_PREFIX + queue.getQueueName());
    }
}
