package pgaq.jms;

import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import javax.jms.BytesMessage;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageListener;
import javax.jms.MessageProducer;
import javax.jms.ObjectMessage;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.QueueReceiver;
import javax.jms.QueueSender;
import javax.jms.QueueSession;
import javax.jms.Session;
import javax.jms.StreamMessage;
import javax.jms.TemporaryQueue;
import javax.jms.TemporaryTopic;
import javax.jms.TextMessage;
import javax.jms.Topic;
import javax.jms.TopicPublisher;
import javax.jms.TopicSession;
import javax.jms.TopicSubscriber;

/**
 * A JMS Session (Oracle Database Advanced Queuing User's Guide, "JMS Session"): a factory
 * for producers, consumers, browsers and messages, one series of transactions
 * ({@link SessionDatabase}), one thread delivering to its message listeners
 * ({@link Delivery}), and Oracle's extensions (getQueue, getTopic, createQueueTable,
 * createQueue, createTopic, getDBConnection: {@link Admin}).
 */
public class AQjmsSession implements QueueSession, TopicSession {
    /** [owner.]name as the SQL procedures read it: identifiers or double-quoted names. */
    private static final Pattern SQL_NAME = Pattern.compile(
            "(\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$#]*)(\\.(\"(?:[^\"]|\"\")+\"|[A-Za-z_][A-Za-z0-9_$#]*))?");
    private final AQjmsConnection connection;
    private final boolean transacted;
    private final int acknowledgeMode;
    private final SessionDatabase db = new SessionDatabase(this);
    private final Delivery delivery = new Delivery(this);
    private final List<AQjmsConsumer> consumers = new ArrayList<>();
    private final List<AQjmsProducer> producers = new ArrayList<>();
    private volatile boolean closed;
    private boolean closing;
    private MessageListener listener;

    AQjmsSession(AQjmsConnection connection, boolean transacted, int acknowledgeMode) {
        this.connection = connection;
        this.transacted = transacted;
        this.acknowledgeMode = acknowledgeMode;
    }

    /** The AQjmsSession behind a Session (JMS programs hold it as javax.jms.Session). */
    static AQjmsSession of(Session s) throws JMSException {
        if (!(s instanceof AQjmsSession)) {
            throw new AQjmsException("JMS-130", "not a pgaq session: " + s);
        }
        return (AQjmsSession) s;
    }

    AQjmsConnection connection() {
        return connection;
    }

    SessionDatabase db() {
        return db;
    }

    Delivery delivery() {
        return delivery;
    }

    Admin admin() throws JMSException {
        checkOpen();
        return new Admin(this);
    }

    boolean getTransactedQuietly() {
        return transacted;
    }

    int ackMode() {
        return acknowledgeMode;
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("JMS-131: Session is closed", "JMS-131");
        }
        connection.checkOpen();
    }

    boolean compliant() {
        return connection.factory().j2eeCompliant;
    }

    // -- destinations ---------------------------------------------------------------------
    /** Oracle's AQjmsSession.getQueue: a handle to the existing queue owner.name. */
    public Queue getQueue(String owner, String name) throws JMSException {
        checkOpen();
        return (Queue) destination(owner, name, false);
    }

    /** Oracle's AQjmsSession.getTopic: a handle to the existing topic owner.name. */
    public Topic getTopic(String owner, String name) throws JMSException {
        checkOpen();
        return (Topic) destination(owner, name, true);
    }

    private AQjmsDestination destination(String owner, String name, boolean topic) throws JMSException {
        if (owner == null || owner.isEmpty() || name == null || name.isEmpty() || name.indexOf('.') >= 0) {
            throw new InvalidDestinationException("JMS-178: give the owner and the name of the "
                    + (topic ? "topic" : "queue"), "JMS-178");
        }
        return checked(db.info(owner + "." + name), topic);
    }

    /** The destination of a queue the catalog has, if it is of the kind asked for. */
    private AQjmsDestination checked(DestInfo info, boolean topic) throws JMSException {
        if (topic != info.multipleConsumers && !info.isExceptionQueue()) {
            throw topic
                    ? new InvalidDestinationException("JMS-126: Invalid Topic: " + info.qualified()
                            + " is a single-consumer queue", "JMS-126")
                    : new InvalidDestinationException("JMS-125: Invalid Queue: " + info.qualified()
                            + " is a multi-consumer queue (getTopic)", "JMS-125");
        }
        return AQjmsDestination.of(info.schema, info.name, topic);
    }

    /** JMS's createQueue(name): the existing queue "owner.name", or "name" in the login's
     *  schema search path (Oracle's queues are made by the administrator, not by this call).
     *  A name that is not [owner.]name in SQL's spelling ("test-queue", "a.b.c", the names
     *  other providers' programs use) is one queue name as it is, in the login's schema. */
    @Override
    public Queue createQueue(String name) throws JMSException {
        checkOpen();
        return (Queue) named(name, false);
    }

    @Override
    public Topic createTopic(String name) throws JMSException {
        checkOpen();
        return (Topic) named(name, true);
    }

    private AQjmsDestination named(String name, boolean topic) throws JMSException {
        if (name == null || name.isEmpty()) {
            throw new InvalidDestinationException("JMS-178: a destination needs a name", "JMS-178");
        }
        DestInfo info = db.info(SQL_NAME.matcher(name).matches() ? name : AQjmsDestination.sqlName(name));
        return checked(info, topic);
    }

    @Override
    public TemporaryQueue createTemporaryQueue() throws JMSException {
        checkOpen();
        return (TemporaryQueue) connection.temporaries().create(false);
    }

    @Override
    public TemporaryTopic createTemporaryTopic() throws JMSException {
        checkOpen();
        return (TemporaryTopic) connection.temporaries().create(true);
    }

    /** One of this provider's destinations; another provider's Queue or Topic is looked up
     *  by its name (so a program that builds its destinations with that provider's classes
     *  runs unchanged, given queues of those names). */
    AQjmsDestination ours(Destination d) throws JMSException {
        if (d == null) {
            throw new InvalidDestinationException("JMS-200: Destination must be specified", "JMS-200");
        }
        if (d instanceof AQjmsDestination) {
            return (AQjmsDestination) d;
        }
        if (d instanceof Topic) {
            return named(((Topic) d).getTopicName(), true);
        }
        if (d instanceof Queue) {
            return named(((Queue) d).getQueueName(), false);
        }
        throw new InvalidDestinationException("JMS-127: not a Queue or a Topic: " + d, "JMS-127");
    }

    /** The catalog's facts about a destination (cached per session). */
    DestInfo info(AQjmsDestination d) throws JMSException {
        return db.info(d);
    }

    // -- Oracle's administrative extensions ("JMS Session") -------------------------------------
    /** Create a queue table owner.name (dbms_aqadm.create_queue_table). */
    public AQQueueTable createQueueTable(String owner, String name, AQQueueTableProperty property)
            throws JMSException {
        return admin().createQueueTable(owner, name, property);
    }

    /** A handle to the existing queue table owner.name. */
    public AQQueueTable getQueueTable(String owner, String name) throws JMSException {
        return admin().getQueueTable(owner, name);
    }

    /** Create a queue in a single-consumer queue table (not started: start it with
     *  AQjmsDestination.start, as Oracle's). */
    public Queue createQueue(AQQueueTable table, String name, AQjmsDestinationProperty property)
            throws JMSException {
        return (Queue) admin().createQueue(table, name, property, false);
    }

    /** Create a topic in a multi-consumer queue table (not started). */
    public Topic createTopic(AQQueueTable table, String name, AQjmsDestinationProperty property)
            throws JMSException {
        return (Topic) admin().createQueue(table, name, property, true);
    }

    /** How received messages' JMSReplyTo addresses become destinations: a Topic where the
     *  catalog has a multi-consumer queue, temporaries by their name (aq.jms_reply_to_kind). */
    ReplyToResolver replyTo() {
        return (owner, name) -> {
            String kind = db.run(c -> {
                try (PreparedStatement st = c.prepareStatement(Sql.load("reply_to_kind"))) {
                    st.setString(1, owner + "." + name);
                    try (ResultSet rs = st.executeQuery()) {
                        return rs.next() ? rs.getString(1) : null;
                    }
                }
            });
            // the address is SQL's spelling; a destination holds the catalog's names
            String o = AQjmsDestination.catalogName(owner);
            String n = AQjmsDestination.catalogName(name);
            if ("TEMPORARY_QUEUE".equals(kind)) {
                return new AQjmsTemporaryQueue(o, n, null);
            }
            if ("TEMPORARY_TOPIC".equals(kind)) {
                return new AQjmsTemporaryTopic(o, n, null);
            }
            return AQjmsDestination.of(o, n, "TOPIC".equals(kind));
        };
    }

    // -- messages -------------------------------------------------------------------------
    @Override
    public Message createMessage() throws JMSException {
        checkOpen();
        return new AQjmsMessage();
    }

    @Override
    public TextMessage createTextMessage() throws JMSException {
        checkOpen();
        return new AQjmsTextMessage();
    }

    @Override
    public TextMessage createTextMessage(String text) throws JMSException {
        TextMessage m = createTextMessage();
        m.setText(text);
        return m;
    }

    @Override
    public BytesMessage createBytesMessage() throws JMSException {
        checkOpen();
        return new AQjmsBytesMessage();
    }

    @Override
    public MapMessage createMapMessage() throws JMSException {
        checkOpen();
        return new AQjmsMapMessage();
    }

    @Override
    public StreamMessage createStreamMessage() throws JMSException {
        checkOpen();
        return new AQjmsStreamMessage();
    }

    @Override
    public ObjectMessage createObjectMessage() throws JMSException {
        checkOpen();
        return new AQjmsObjectMessage();
    }

    @Override
    public ObjectMessage createObjectMessage(Serializable object) throws JMSException {
        ObjectMessage m = createObjectMessage();
        m.setObject(object);
        return m;
    }

    /** Oracle's createAdtMessage: a message whose payload is an object type's value. */
    public AQjmsAdtMessage createAdtMessage() throws JMSException {
        checkOpen();
        return new AQjmsAdtMessage();
    }

    public AQjmsAdtMessage createAdtMessage(Map<String, Object> payload) throws JMSException {
        AQjmsAdtMessage m = createAdtMessage();
        m.setAdtPayload(payload);
        return m;
    }

    // -- producers ------------------------------------------------------------------------
    @Override
    public MessageProducer createProducer(Destination destination) throws JMSException {
        checkOpen();
        AQjmsProducer p = new AQjmsProducer(this, destination == null ? null : ours(destination));
        synchronized (producers) {
            producers.add(p);
        }
        return p;
    }

    @Override
    public QueueSender createSender(Queue queue) throws JMSException {
        return (QueueSender) createProducer(queue);
    }

    @Override
    public TopicPublisher createPublisher(Topic topic) throws JMSException {
        return (TopicPublisher) createProducer(topic);
    }

    void forget(AQjmsProducer p) {
        synchronized (producers) {
            producers.remove(p);
        }
    }

    // -- consumers ------------------------------------------------------------------------
    @Override
    public MessageConsumer createConsumer(Destination destination) throws JMSException {
        return createConsumer(destination, null, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String selector) throws JMSException {
        return createConsumer(destination, selector, false);
    }

    @Override
    public MessageConsumer createConsumer(Destination destination, String selector, boolean noLocal)
            throws JMSException {
        checkOpen();
        AQjmsDestination d = ours(destination);
        return d.isTopic() ? open(AQjmsConsumer.subscriber(this, d, selector, noLocal))
                : open(AQjmsConsumer.receiver(this, d, selector, null));
    }

    @Override
    public QueueReceiver createReceiver(Queue queue) throws JMSException {
        return createReceiver(queue, null);
    }

    @Override
    public QueueReceiver createReceiver(Queue queue, String selector) throws JMSException {
        checkOpen();
        AQjmsDestination d = ours(queue);
        if (d.isTopic()) {
            throw new InvalidDestinationException("JMS-125: Invalid Queue specified: " + d, "JMS-125");
        }
        return open(AQjmsConsumer.receiver(this, d, selector, null));
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic) throws JMSException {
        return createSubscriber(topic, null, false);
    }

    @Override
    public TopicSubscriber createSubscriber(Topic topic, String selector, boolean noLocal) throws JMSException {
        checkOpen();
        return open(AQjmsConsumer.subscriber(this, topicOf(topic), selector, noLocal));
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name) throws JMSException {
        return createDurableSubscriber(topic, name, null, false);
    }

    @Override
    public TopicSubscriber createDurableSubscriber(Topic topic, String name, String selector, boolean noLocal)
            throws JMSException {
        checkOpen();
        AQjmsDestination d = topicOf(topic);
        if (d instanceof AQjmsTemporaryTopic) {
            throw new InvalidDestinationException(
                    "JMS-127: a temporary topic takes no durable subscription (JMS 1.1 section 6.11.1)", "JMS-127");
        }
        if (name == null || name.trim().isEmpty()) {
            throw new AQjmsException("JMS-116", "Subscriber name must be specified");
        }
        return open(AQjmsConsumer.durable(this, d, name, selector, noLocal));
    }

    /** Oracle's TopicReceiver: a receiver of the messages addressed to {@code name} by
     *  recipient lists (no subscription of its own). */
    public AQjmsConsumer createTopicReceiver(Topic topic, String name, String selector) throws JMSException {
        checkOpen();
        if (name == null || name.trim().isEmpty()) {
            throw new AQjmsException("JMS-116", "Subscriber name must be specified");
        }
        return open(AQjmsConsumer.receiver(this, topicOf(topic), selector, name));
    }

    private AQjmsDestination topicOf(Topic topic) throws JMSException {
        AQjmsDestination d = ours(topic);
        if (!d.isTopic()) {
            throw new InvalidDestinationException("JMS-126: Invalid Topic specified: " + d, "JMS-126");
        }
        return d;
    }

    private AQjmsConsumer open(AQjmsConsumer c) throws JMSException {
        c.open();
        synchronized (consumers) {
            consumers.add(c);
        }
        if (listener != null) {
            c.setMessageListener(listener);
        }
        return c;
    }

    void forget(AQjmsConsumer c) {
        synchronized (consumers) {
            consumers.remove(c);
        }
    }

    List<AQjmsConsumer> consumers() {
        synchronized (consumers) {
            return new ArrayList<>(consumers);
        }
    }

    boolean hasDurableSubscriber(String name) {
        for (AQjmsConsumer c : consumers()) {
            if (c.isDurable() && name.equalsIgnoreCase(c.subscriberName())) {
                return true;
            }
        }
        return false;
    }

    boolean hasConsumersOn(AQjmsDestination d) {
        for (AQjmsConsumer c : consumers()) {
            if (c.destination().equals(d)) {
                return true;
            }
        }
        return false;
    }

    /** The selector as the database evaluates it in this connection's mode, checked against
     *  the queue (InvalidSelectorException, JMS-159, for one that does not compile). */
    String compileSelector(DestInfo info, String selector) throws JMSException {
        if (selector == null || selector.trim().isEmpty()) {
            return null;
        }
        try {
            return db.run(c -> {
                String sql;
                try (PreparedStatement st = c.prepareStatement(Sql.load("selector_for_mode"))) {
                    st.setString(1, selector);
                    st.setBoolean(2, compliant());
                    try (ResultSet rs = st.executeQuery()) {
                        rs.next();
                        sql = rs.getString(1);
                    }
                }
                try (PreparedStatement st = c.prepareStatement(Sql.load("check_selector"))) {
                    st.setString(1, sql);
                    st.setString(2, info.qualified());
                    st.executeQuery().close();
                }
                return sql;
            });
        } catch (InvalidSelectorException e) {
            throw e;
        } catch (JMSException e) {
            InvalidSelectorException bad = new InvalidSelectorException(
                    "JMS-159: Invalid selector " + selector + ": " + e.getMessage(), "JMS-159");
            bad.setLinkedException(e);
            throw bad;
        }
    }

    @Override
    public void unsubscribe(String name) throws JMSException {
        checkOpen();
        if (connection.hasDurableSubscriber(name)) {
            throw new IllegalStateException(
                    "JMS-230: Illegal attempt to delete durable subscription with active TopicSubscribers", "JMS-230");
        }
        List<String> topics = db.run(c -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement st = c.prepareStatement(Sql.load("subscriptions"))) {
                st.setString(1, name);
                try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                }
            }
            return out;
        });
        if (topics.isEmpty()) {
            throw new InvalidDestinationException("JMS-235: no durable subscription " + name, "JMS-235");
        }
        for (String t : topics) {
            removeSubscriber(t, name);
        }
    }

    /** Oracle's unsubscribe(Topic, name). */
    public void unsubscribe(Topic topic, String name) throws JMSException {
        checkOpen();
        removeSubscriber(topicOf(topic).getCompleteName(), name);
    }

    /** Oracle's createRemoteSubscriber: messages published to the topic (matching the
     *  selector) propagate to the remote subscriber's address, a queue here or at a database
     *  link (Oracle Database Advanced Queuing User's Guide, "RemoteSubscriber"); delivered
     *  there by a propagation schedule (AQjmsDestination.schedulePropagation). */
    public void createRemoteSubscriber(Topic topic, AQjmsAgent remote, String selector) throws JMSException {
        checkOpen();
        AQjmsDestination t = topicOf(topic);
        String rule = compileSelector(info(t), selector);
        db.run(c -> {
            try (PreparedStatement st = c.prepareStatement(Sql.load("add_remote_subscriber"))) {
                st.setString(1, t.getCompleteName());
                st.setString(2, remote.getName());
                st.setString(3, remote.getAddress());
                st.setInt(4, remote.getProtocol());
                st.setString(5, rule);
                st.execute();
            }
            return null;
        });
    }

    /** Oracle's unsubscribe(Topic, AQjmsAgent): remove a remote subscriber. */
    public void unsubscribe(Topic topic, AQjmsAgent remote) throws JMSException {
        checkOpen();
        AQjmsDestination t = topicOf(topic);
        db.run(c -> {
            try (PreparedStatement st = c.prepareStatement(Sql.load("remove_remote_subscriber"))) {
                st.setString(1, t.getCompleteName());
                st.setString(2, remote.getName());
                st.setString(3, remote.getAddress());
                st.setInt(4, remote.getProtocol());
                st.execute();
            }
            return null;
        });
    }

    void removeSubscriber(String topic, String name) throws JMSException {
        db.run(c -> {
            try (PreparedStatement st = c.prepareStatement(Sql.load("remove_subscriber"))) {
                st.setString(1, topic);
                st.setString(2, name);
                st.execute();
            }
            return null;
        });
    }

    // -- browsers -------------------------------------------------------------------------
    @Override
    public QueueBrowser createBrowser(Queue queue) throws JMSException {
        return createBrowser(queue, null);
    }

    @Override
    public QueueBrowser createBrowser(Queue queue, String selector) throws JMSException {
        checkOpen();
        AQjmsDestination d = ours(queue);
        DestInfo info = info(d);
        return new AQjmsQueueBrowser(this, d, null, compileSelector(info, selector), selector);
    }

    /** Oracle's TopicBrowser: the messages a durable subscriber has not yet received. */
    public AQjmsQueueBrowser createBrowser(Topic topic, String subscriberName, String selector) throws JMSException {
        checkOpen();
        AQjmsDestination d = topicOf(topic);
        DestInfo info = info(d);
        return new AQjmsQueueBrowser(this, d, subscriberName, compileSelector(info, selector), selector);
    }

    // -- the session-wide listener (JMS 1.1 section 4.4.15: for application servers) -----------
    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return listener;
    }

    @Override
    public void setMessageListener(MessageListener l) throws JMSException {
        checkOpen();
        listener = l;
        for (AQjmsConsumer c : consumers()) {
            c.setMessageListener(l);
        }
    }

    @Override
    public void run() {
        // the distinguished listener is fed by this session's delivery thread, not by run()
    }

    // -- transactions and acknowledgement ------------------------------------------------------
    @Override
    public boolean getTransacted() throws JMSException {
        checkOpen();
        return transacted;
    }

    @Override
    public int getAcknowledgeMode() throws JMSException {
        checkOpen();
        return acknowledgeMode;
    }

    @Override
    public void commit() throws JMSException {
        checkOpen();
        if (!transacted) {
            throw new IllegalStateException("JMS-227: Illegal attempt to commit a non transacted session", "JMS-227");
        }
        db.commit();
    }

    @Override
    public void rollback() throws JMSException {
        checkOpen();
        if (!transacted) {
            throw new IllegalStateException("JMS-228: Illegal attempt to rollback a non transacted session", "JMS-228");
        }
        db.rollback();
    }

    /** Redeliver what was delivered and not acknowledged (each a failed attempt). */
    @Override
    public void recover() throws JMSException {
        checkOpen();
        if (transacted) {
            throw new IllegalStateException("JMS-238: Illegal attempt to recover a transacted session", "JMS-238");
        }
        db.rollback();
    }

    /** Oracle's AQjmsSession.acknowledge: every message this session delivered. */
    public void acknowledge() throws JMSException {
        checkOpen();
        if (acknowledgeMode == CLIENT_ACKNOWLEDGE) {
            db.commit();
        }
    }

    /** Oracle's getDBConnection: the session's JDBC connection, to run SQL in its transaction. */
    public Connection getDBConnection() throws JMSException {
        checkOpen();
        return db.connection();
    }

    // -- connection state -------------------------------------------------------------------------
    void connectionStarted() {
        delivery.wake();
    }

    /** Wait for the message listener running now, if any (unless called from it). */
    void quiesce() {
        delivery.quiesce();
    }

    /** Closes after the message listener running now, if any, has returned: until then the
     *  session stays usable by it (JMS 1.1 section 4.4.1), so its acknowledge or commit counts. */
    @Override
    public void close() throws JMSException {
        synchronized (this) {
            if (closed || closing) {
                return;
            }
            closing = true;
        }
        delivery.close();
        closed = true;
        JMSException first = null;
        for (AQjmsConsumer c : consumers()) {
            try {
                c.closeFromSession();
            } catch (JMSException e) {
                first = first == null ? e : first;
            }
        }
        synchronized (producers) {
            producers.clear();
        }
        try {
            // JMS 1.1 section 4.4.1: closing a transacted session rolls back its transaction;
            // a CLIENT_ACKNOWLEDGE session's unacknowledged messages come again
            db.rollback();
        } catch (JMSException e) {
            first = first == null ? e : first;
        }
        db.close();
        connection.forget(this);
        if (first != null) {
            throw first;
        }
    }

    @Override
    public String toString() {
        return "AQjmsSession(" + (transacted ? "transacted" : "ack " + acknowledgeMode) + ")";
    }

    static String upper(String s) {
        return s == null ? null : s.toUpperCase(Locale.ROOT);
    }
}
