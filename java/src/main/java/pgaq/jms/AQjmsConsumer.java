package pgaq.jms;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageListener;
import javax.jms.Queue;
import javax.jms.QueueReceiver;
import javax.jms.Session;
import javax.jms.Topic;
import javax.jms.TopicSubscriber;

/**
 * MessageConsumer, QueueReceiver and TopicSubscriber (and Oracle's TopicReceiver).
 *
 * A queue receiver dequeues from a single-consumer queue, its selector a dequeue condition.
 * A topic subscriber is an AQ subscriber of the multi-consumer queue, its selector the
 * subscriber's rule: durable ones keep their name, a non-durable one has a name of its own
 * removed at close. AQ keeps for a subscriber what is published once it exists, so the
 * subscription is made before createSubscriber / createDurableSubscriber returns (JMS 1.1:
 * a subscriber gets what is published while it is active).
 *
 * A receive looks once, then waits on the connection's listening connection (woken by the
 * enqueue's NOTIFY, in turn with the connection's other waiters that compete for the same
 * messages, {@link WaitGroups}; by a reconnect; and for a safety look every safety poll)
 * until a message it may take is there, its time is up, or the consumer closes; while the
 * connection is stopped it does not look (JMS 1.1 section 4.3.3).
 */
public class AQjmsConsumer implements QueueReceiver, TopicSubscriber {
    /** Oracle's AQjmsConstants navigation modes (OCI's numbers). */
    public static final int NAVIGATION_FIRST_MESSAGE = 1;
    public static final int NAVIGATION_NEXT_TRANSACTION = 2;
    public static final int NAVIGATION_NEXT_MESSAGE = 3;

    private final AQjmsSession session;
    private final AQjmsDestination destination;
    private final String selector;
    private final String name;
    private final boolean durable;
    /** A non-durable topic subscriber: its AQ subscriber is its own, removed at close. */
    private final boolean ownSubscriber;
    private final boolean noLocal;
    private String sqlSelector;
    private DestInfo info;
    private volatile boolean closed;
    private volatile MessageListener listener;
    private int navigation;
    private long looks;
    /** Where NEXT_MESSAGE and NEXT_TRANSACTION go on from in a grouped queue: the last
     *  message's position and transaction group, persistent [0] and NON_PERSISTENT [1] ones
     *  each (each class is ordered on its own); null: the head. */
    private final Object[][] positions = new Object[2][];
    private final Long[] groups = new Long[2];

    private AQjmsConsumer(AQjmsSession session, AQjmsDestination destination, String selector, String name,
            boolean durable, boolean ownSubscriber, boolean noLocal) {
        this.session = session;
        this.destination = destination;
        this.selector = selector == null || selector.trim().isEmpty() ? null : selector;
        this.name = name;
        this.durable = durable;
        this.ownSubscriber = ownSubscriber;
        this.noLocal = noLocal;
    }

    static AQjmsConsumer receiver(AQjmsSession s, AQjmsDestination d, String selector, String name) {
        return new AQjmsConsumer(s, d, selector, name, false, false, false);
    }

    static AQjmsConsumer subscriber(AQjmsSession s, AQjmsDestination d, String selector, boolean noLocal) {
        String own = "TSUB_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24).toUpperCase();
        return new AQjmsConsumer(s, d, selector, own, false, true, noLocal);
    }

    static AQjmsConsumer durable(AQjmsSession s, AQjmsDestination d, String name, String selector, boolean noLocal) {
        return new AQjmsConsumer(s, d, selector, name, true, false, noLocal);
    }

    AQjmsDestination destination() {
        return destination;
    }

    boolean isDurable() {
        return durable;
    }

    String subscriberName() {
        return name;
    }

    /** Check the destination and selector, and make the subscription (topic subscribers). */
    void open() throws JMSException {
        DestInfo i = session.info(destination);
        boolean subscribed = durable || ownSubscriber;
        if (destination.isTopic() && !i.multipleConsumers) {
            throw new javax.jms.InvalidDestinationException(
                    "JMS-126: Invalid Topic specified: " + i.qualified() + " is a single-consumer queue", "JMS-126");
        }
        if (!destination.isTopic() && i.multipleConsumers && name == null && !i.isExceptionQueue()) {
            throw new javax.jms.InvalidDestinationException("JMS-125: Invalid Queue specified: " + i.qualified()
                    + " is a multi-consumer queue (getTopic)", "JMS-125");
        }
        if (destination instanceof AQjmsTemporaryQueue || destination instanceof AQjmsTemporaryTopic) {
            AQjmsConnection owner = destination instanceof AQjmsTemporaryQueue
                    ? ((AQjmsTemporaryQueue) destination).connection()
                    : ((AQjmsTemporaryTopic) destination).connection();
            if (owner != null && owner != session.connection()) {
                throw new javax.jms.InvalidDestinationException("JMS-127: a temporary destination is "
                        + "consumed only by the connection that made it (JMS 1.1 section 4.4.3)", "JMS-127");
            }
        }
        sqlSelector = session.compileSelector(i, selector);
        if (subscribed) {
            subscribe(i);
        }
        if (noLocal) {
            session.connection().noLocalTopics.add(i.qualified().toLowerCase(java.util.Locale.ROOT));
        }
        info = i;
    }

    /** The AQ subscriber behind a topic subscriber; a durable one's name with another
     *  selector alters the subscription, keeping its messages (Oracle Database Advanced
     *  Queuing User's Guide, "DurableSubscriber"). */
    private void subscribe(DestInfo i) throws JMSException {
        session.db().run(c -> {
            boolean exists = false;
            String rule = null;
            if (durable) {
                try (PreparedStatement st = c.prepareStatement(Sql.load("subscriber_rule"))) {
                    st.setInt(1, i.queueId);
                    st.setString(2, name);
                    try (ResultSet rs = st.executeQuery()) {
                        if (rs.next()) {
                            exists = true;
                            rule = rs.getString(1);
                        }
                    }
                }
            }
            String sql = !exists ? "add_subscriber"
                    : (rule == null ? sqlSelector != null : !rule.equals(sqlSelector)) ? "alter_subscriber" : null;
            if (sql != null) {
                try (PreparedStatement st = c.prepareStatement(Sql.load(sql))) {
                    st.setString(1, i.qualified());
                    st.setString(2, name);
                    st.setString(3, sqlSelector);
                    st.execute();
                }
            }
            return null;
        });
    }

    private void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("JMS-115: Consumer is closed", "JMS-115");
        }
        session.checkOpen();
    }

    // -- getters ---------------------------------------------------------------------------
    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selector;
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return destination instanceof Queue ? (Queue) destination : null;
    }

    @Override
    public Topic getTopic() throws JMSException {
        checkOpen();
        return destination instanceof Topic ? (Topic) destination : null;
    }

    @Override
    public boolean getNoLocal() throws JMSException {
        checkOpen();
        return noLocal;
    }

    /** Oracle's AQjmsConsumer.setNavigationMode (NAVIGATION_*). */
    public void setNavigationMode(int mode) throws JMSException {
        checkOpen();
        if (mode < NAVIGATION_FIRST_MESSAGE || mode > NAVIGATION_NEXT_MESSAGE) {
            throw new AQjmsException("ORA-25237", "invalid navigation mode " + mode);
        }
        navigation = mode;
    }

    public int getNavigationMode() throws JMSException {
        checkOpen();
        return navigation == 0 ? NAVIGATION_NEXT_MESSAGE : navigation;
    }

    // -- receiving -------------------------------------------------------------------------
    @Override
    public Message receive() throws JMSException {
        return receive(0L);
    }

    /** The next message, waiting up to {@code timeout} ms (0: for ever); null when none came
     *  or the consumer closed meanwhile. */
    @Override
    public Message receive(long timeout) throws JMSException {
        noListener();
        return next(timeout <= 0 ? Long.MAX_VALUE : timeout, null, false);
    }

    @Override
    public Message receiveNoWait() throws JMSException {
        noListener();
        return next(-1, null, false);
    }

    /** Oracle's receive by message id ("ID:hex" or AQ's hex), waiting up to {@code timeout} ms. */
    public Message receive(String messageId, long timeout) throws JMSException {
        noListener();
        String hex = messageId.startsWith("ID:") ? messageId.substring(3) : messageId;
        return next(timeout <= 0 ? -1 : timeout, hex.toUpperCase(java.util.Locale.ROOT), false);
    }

    /** Oracle's receiveNoData: remove the next message without fetching it (AQ's
     *  REMOVE_NODATA); its JMSMessageID, or null. */
    public String receiveNoData() throws JMSException {
        noListener();
        Message m = next(-1, null, true);
        return m == null ? null : m.getJMSMessageID();
    }

    private void noListener() throws JMSException {
        checkOpen();
        if (listener != null) {
            throw new IllegalStateException("JMS-198: receive on a consumer that has a message listener", "JMS-198");
        }
    }

    /** The receive loop: {@code timeout} ms (Long.MAX_VALUE: for ever, negative: one look). */
    private Message next(long timeout, String msgid, boolean noData) throws JMSException {
        AQjmsConnection conn = session.connection();
        if (timeout < 0) {
            return conn.isStarted() ? look(msgid, false, noData) : null;
        }
        Wakeups wakeups = conn.wakeups();
        WaitGroups g = wakeups.groups();
        long deadline = timeout == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() / 1_000_000L + timeout;
        long poll = conn.factory().safetyPollMillis;
        long retry = 0;  // after a look that lost the database: look again this soon (ms)
        Waiter w = null;
        boolean clean = false;  // left by a return, not an exception: see WaitGroups.leave
        try {
            // joined before the first look, so that a NOTIFY of a message committed after it is seen
            w = wakeups.join(info.channel(), msgid == null ? shareKey() : null, null);
            boolean look = true;
            while (true) {
                long epoch = g.epoch();
                if (closed || session.isClosed()) {
                    clean = true;
                    return null;
                }
                if (!conn.isStarted()) {
                    long left = deadline == Long.MAX_VALUE ? poll : deadline - System.nanoTime() / 1_000_000L;
                    if (left <= 0 || conn.isClosed()) {
                        clean = true;
                        return null;
                    }
                    conn.awaitStarted(Math.min(left, poll), () -> closed || session.isClosed());
                    look = true;
                    continue;
                }
                if (look) {
                    g.clear(w);
                    Message m;
                    try {
                        m = look(msgid, true, noData);
                        retry = 0;
                    } catch (JMSException e) {
                        if (!"JMS-220".equals(e.getErrorCode()) || closed || session.isClosed() || conn.isClosed()) {
                            throw e;
                        }
                        // the database was lost (told to the ExceptionListener by the listening
                        // connection): a blocking receive waits through the outage and looks
                        // again on a new connection, backing off (a reconnect that came first
                        // wakes nobody again)
                        m = null;
                        retry = Math.min(Math.max(retry * 2, 50), 5000);
                    }
                    if (m != null) {
                        g.took(w);
                        clean = true;
                        return m;
                    }
                }
                long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime() / 1_000_000L;
                if (left <= 0) {
                    clean = true;
                    return null;
                }
                // a shared key's safety looks are the listening thread's (WaitGroups)
                long pause = retry > 0 ? Math.min(left, retry) : g.polled(w) ? left : Math.min(left, poll);
                look = g.await(w, epoch, pause) || retry > 0;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } finally {
            if (w != null) {
                g.leave(w, clean);
            }
        }
    }

    /**
     * The key of this connection's waiters that compete for the same messages (those of the
     * Python provider: queue, consumer name, the selector unless it is the subscription's
     * rule, noLocal): a NOTIFY wakes one of them (WaitGroups). A look starts from the first
     * message its consumer may take, so one that finds nothing says so for them all; a
     * consumer with a navigation mode of its own waits on its own (null).
     */
    Object shareKey() {
        if (navigation != 0) {
            return null;
        }
        String consumer = info.multipleConsumers && !info.isExceptionQueue() ? name : null;
        String cond = ownSubscriber || durable ? null : sqlSelector;
        return java.util.Arrays.asList("jms", info.qualified().toLowerCase(java.util.Locale.ROOT), consumer, cond,
                noLocal);
    }

    private Message look(String msgid, boolean blocking, boolean noData) throws JMSException {
        return take(msgid, noData, false, blocking);
    }

    /** A listener's look (it waits for messages, as a blocking receive). */
    Message take(String msgid, boolean noData, boolean forListener) throws JMSException {
        return take(msgid, noData, forListener, true);
    }

    /** One look: the next message for this consumer now, or null; a no-local consumer passes
     *  over its own connection's. {@code forListener}: taken in a transaction that the
     *  listener's return settles. {@code blocking}: at the end of the queue (or of a
     *  transaction group), navigation starts again from the head, as it does by default
     *  (Oracle Database Advanced Queuing User's Guide, "Message Navigation in Receive"). */
    Message take(String msgid, boolean noData, boolean forListener, boolean blocking) throws JMSException {
        boolean again = msgid == null && (navigation == 0 || blocking);
        while (true) {
            checkOpen();
            int mode = session.ackMode();
            boolean inTx = forListener || SessionDatabase.receivesInTransaction(mode);
            // AUTO_ACKNOWLEDGE (and DUPS_OK, which allows duplicates, not losses) receive: a
            // PERSISTENT message is removed in a transaction committed once the message is
            // made (SessionDatabase.settleReceive): at least once; a NON_PERSISTENT one in
            // autocommit, at most once (JMS 1.1 section 4.7)
            boolean settle = !forListener
                    && (mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE);
            String nav = navigation == NAVIGATION_FIRST_MESSAGE ? "FIRST_MESSAGE"
                    : navigation == NAVIGATION_NEXT_TRANSACTION ? "NEXT_TRANSACTION" : "NEXT_MESSAGE";
            String dmode = noData ? "REMOVE_NODATA" : "REMOVE";
            String cond = ownSubscriber || durable ? null : sqlSelector;
            String consumer = info.multipleConsumers && !info.isExceptionQueue() ? name : null;
            // persistent messages first, NON_PERSISTENT (buffered) ones when there are none;
            // every eighth look the other way round so a steady flow starves neither
            boolean bufferedFirst = (++looks & 7) == 0 && msgid == null;
            Dequeued d = dequeueFrom(consumer, dmode, nav, msgid, cond, bufferedFirst, inTx, settle);
            if (d == null) {
                d = dequeueFrom(consumer, dmode, nav, msgid, cond, !bufferedFirst, inTx, settle);
            }
            if (d == null && again && (positions[0] != null || positions[1] != null)) {
                again = false;
                forgetPositions();
                continue;
            }
            if (d == null) {
                // nothing taken: a transaction that holds nothing is not left open while
                // the receive or the listener waits (its REMOVE's locks would stay held)
                session.db().endIdle();
                return null;
            }
            if (msgid == null) {  // a receive by id leaves the position where it was
                int k = d.buffered ? 1 : 0;
                // a removed message is gone: an ungrouped queue is read from the head again
                // (retries and more urgent messages included); a grouped one goes on in the group
                positions[k] = info.grouped ? d.position : null;
                groups[k] = info.grouped ? d.group : null;
            }
            boolean settling = settle && !d.buffered;
            AQjmsMessage m;
            try {
                m = made(d, noData, mode, forListener);
            } catch (JMSException | RuntimeException e) {
                if (settling) {
                    session.db().rollback();  // not removed: a failed attempt
                }
                throw e;
            }
            if (settling) {
                session.db().settleReceive();
            }
            if (m == null) {
                continue;  // one of this connection's own publications
            }
            return m;
        }
    }

    /** The message the application gets of {@code d}; null for a no-local consumer's own. */
    private AQjmsMessage made(Dequeued d, boolean noData, int mode, boolean forListener)
            throws JMSException {
        if (noLocal && session.connection().localName.equals(d.senderName)) {
            return null;
        }
        if (noData) {  // REMOVE_NODATA brings no payload to decode: the id is all there is
            AQjmsMessage removed = new AQjmsMessage();
            removed.setJMSMessageID("ID:" + d.msgid);
            return removed;
        }
        AQjmsMessage m = PayloadCodec.decode(d, info.payloadKind, destination, session.compliant(),
                session.replyTo());
        if (session.connection().maybeDelivered.remove(d.msgid) && !m.getJMSRedelivered()) {
            // taken by a transaction lost with its connection (AQ counted no attempt)
            m.setJMSRedelivered(true);
            m.setProviderProperty("JMSXDeliveryCount", d.attempts + 2);
        }
        m.setProviderProperty("JMSXState", info.isExceptionQueue() ? 3 : 2);
        m.setProviderProperty("JMSXRcvTimestamp", System.currentTimeMillis());
        if (mode == Session.CLIENT_ACKNOWLEDGE) {
            m.setAcknowledger(session::acknowledge);
        }
        m.streamable = !forListener && !d.buffered && SessionDatabase.receivesInTransaction(mode);
        return m;
    }

    /** One dequeue of one delivery class, from this consumer's position in it; {@code
     *  settle}: an AUTO_ACKNOWLEDGE receive's, PERSISTENT ones in a transaction (an empty one
     *  ended at once: the NON_PERSISTENT look runs in autocommit). */
    private Dequeued dequeueFrom(String consumer, String dmode, String nav, String msgid, String cond,
            boolean buffered, boolean inTx, boolean settle) throws JMSException {
        int k = buffered ? 1 : 0;
        boolean first = msgid != null || navigation == NAVIGATION_FIRST_MESSAGE;
        boolean tx = inTx || (settle && !buffered);
        Dequeued d = session.db().dequeue(info, consumer, dmode, nav, msgid, cond, first ? null : positions[k],
                first ? null : groups[k], buffered, tx);
        if (d == null && tx && !inTx) {
            session.db().endIdle();
        }
        return d;
    }

    /** Navigate from the head again (a rollback or recover offers what it took again). */
    void forgetPositions() {
        positions[0] = null;
        positions[1] = null;
        groups[0] = null;
        groups[1] = null;
    }

    // -- the message listener ---------------------------------------------------------------
    @Override
    public MessageListener getMessageListener() throws JMSException {
        checkOpen();
        return listener;
    }

    /** Deliver each message to {@code l} from the session's delivery thread once the
     *  connection is started, one at a time per session; null stops (after the message being
     *  delivered, if any). */
    @Override
    public void setMessageListener(MessageListener l) throws JMSException {
        checkOpen();
        listener = l;
        session.delivery().changed();
    }

    MessageListener listener() {
        return listener;
    }

    String channel() {
        return info.channel();
    }

    boolean isClosed() {
        return closed;
    }

    // -- close ------------------------------------------------------------------------------
    /** Stop the listener (after its current message), wake a waiting receive (it returns
     *  null), and remove a non-durable subscriber's AQ subscription. */
    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        closeFromSession();
        session.forget(this);
    }

    void closeFromSession() throws JMSException {
        if (closed) {
            return;
        }
        closed = true;
        listener = null;
        session.connection().wakeups().nudge();
        session.connection().wakeStopped();
        session.delivery().changed();
        session.delivery().quiesce();
        if (ownSubscriber && info != null) {
            session.removeSubscriber(info.qualified(), name);
        }
    }

    @Override
    public String toString() {
        return "AQjmsConsumer(" + destination + (name == null ? "" : ", " + name) + ")";
    }
}
