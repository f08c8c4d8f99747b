package pgaq.jms;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.jms.ConnectionConsumer;
import javax.jms.ConnectionMetaData;
import javax.jms.Destination;
import javax.jms.ExceptionListener;
import javax.jms.IllegalStateException;
import javax.jms.InvalidClientIDException;
import javax.jms.JMSException;
import javax.jms.Queue;
import javax.jms.QueueConnection;
import javax.jms.QueueSession;
import javax.jms.ServerSessionPool;
import javax.jms.Session;
import javax.jms.Topic;
import javax.jms.TopicConnection;
import javax.jms.TopicSession;

/**
 * A JMS Connection (Oracle Database Advanced Queuing User's Guide, "JMS Connection"): the
 * factory's database and login, the sessions made from it (each with its own database
 * connection: a connection has one owner), one listening connection that wakes their waits
 * ({@link Wakeups}), and the lease behind its temporary destinations. Created stopped.
 */
public class AQjmsConnection implements QueueConnection, TopicConnection {
    private static final AtomicLong IDS = new AtomicLong();

    private final AQjmsConnectionFactory factory;
    private final Properties login;
    private final long id = IDS.incrementAndGet();
    private final List<AQjmsSession> sessions = new ArrayList<>();
    private final Wakeups wakeups = new Wakeups(this);
    private final Temporaries temporaries = new Temporaries(this);
    /** The name this connection's publications carry to topics one of its consumers reads
     *  with noLocal: those consumers pass over them. */
    final String localName = "JMS" + UUID.randomUUID().toString().replace("-", "").substring(0, 20).toUpperCase();
    final Set<String> noLocalTopics = ConcurrentHashMap.newKeySet();
    /** Ids of messages taken by transactions lost with their database connection: AQ counts
     *  no attempt for them, so delivered again they are flagged JMSRedelivered here. */
    final Set<String> maybeDelivered = ConcurrentHashMap.newKeySet();
    private final Object state = new Object();
    private volatile boolean started;
    private volatile boolean closed;
    private String clientId;
    private boolean clientIdFixed;
    private ExceptionListener exceptionListener;

    AQjmsConnection(AQjmsConnectionFactory factory, String user, String password) throws JMSException {
        this.factory = factory;
        this.login = (Properties) factory.info.clone();
        if (user != null) {
            login.setProperty("user", user);
        }
        if (password != null) {
            login.setProperty("password", password);
        }
        // a connection that cannot log in fails here, as Oracle's does (JMS 1.1: createConnection
        // authenticates)
        try {
            openDatabase().close();
        } catch (SQLException e) {
            throw Sql.error(e);
        }
    }

    long id() {
        return id;
    }

    AQjmsConnectionFactory factory() {
        return factory;
    }

    Wakeups wakeups() {
        return wakeups;
    }

    Temporaries temporaries() {
        return temporaries;
    }

    /** A new database connection of this connection's login; its caller owns it. */
    java.sql.Connection openDatabase() throws SQLException {
        java.sql.Connection c = DriverManager.getConnection(factory.url, login);
        c.setAutoCommit(true);
        return c;
    }

    void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("JMS-114: Connection is closed", "JMS-114");
        }
    }

    boolean isStarted() {
        return started && !closed;
    }

    boolean isClosed() {
        return closed;
    }

    /** Wait until the connection is started (or closed), at most {@code millis}. */
    void awaitStarted(long millis) throws InterruptedException {
        awaitStarted(millis, () -> false);
    }

    /** As {@link #awaitStarted(long)}, or until {@code quit} says so after {@link #wakeStopped}. */
    void awaitStarted(long millis, java.util.function.BooleanSupplier quit) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (state) {
            while (!started && !closed && !quit.getAsBoolean()) {
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return;
                }
                state.wait(left);
            }
        }
    }

    /** Wake those waiting for the start, to check what else they wait for (a listener
     *  thread closing while the connection is stopped). */
    void wakeStopped() {
        synchronized (state) {
            state.notifyAll();
        }
    }

    /** A problem the application cannot see otherwise (a lost connection): to its
     *  ExceptionListener, if it set one. */
    void report(JMSException e) {
        ExceptionListener l;
        synchronized (state) {
            l = exceptionListener;
        }
        if (l != null && !closed) {
            try {
                l.onException(e);
            } catch (RuntimeException ignored) {
                // an exception listener's own failure is not ours to handle
            }
        }
    }

    private void fixClientId() {
        synchronized (state) {
            clientIdFixed = true;
        }
    }

    // -- sessions -------------------------------------------------------------------------
    @Override
    public Session createSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted, acknowledgeMode);
    }

    @Override
    public QueueSession createQueueSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted, acknowledgeMode);
    }

    @Override
    public TopicSession createTopicSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted, acknowledgeMode);
    }

    private AQjmsSession newSession(boolean transacted, int acknowledgeMode) throws JMSException {
        checkOpen();
        fixClientId();
        if (!transacted && (acknowledgeMode < Session.AUTO_ACKNOWLEDGE
                || acknowledgeMode > Session.DUPS_OK_ACKNOWLEDGE)) {
            throw new AQjmsException("JMS-148", "invalid acknowledge mode " + acknowledgeMode);
        }
        AQjmsSession s = new AQjmsSession(this, transacted, transacted ? Session.SESSION_TRANSACTED : acknowledgeMode);
        synchronized (sessions) {
            sessions.add(s);
        }
        return s;
    }

    /** Whether a consumer of this connection reads the destination (a temporary one then
     *  cannot be deleted). */
    boolean hasConsumersOn(AQjmsDestination d) {
        for (AQjmsSession s : sessions()) {
            if (s.hasConsumersOn(d)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a session of this connection has the durable subscription open (JMS 1.1:
     *  unsubscribe of an active subscription is an error). */
    boolean hasDurableSubscriber(String name) {
        for (AQjmsSession s : sessions()) {
            if (s.hasDurableSubscriber(name)) {
                return true;
            }
        }
        return false;
    }

    void forget(AQjmsSession s) {
        synchronized (sessions) {
            sessions.remove(s);
        }
    }

    private List<AQjmsSession> sessions() {
        synchronized (sessions) {
            return new ArrayList<>(sessions);
        }
    }

    // -- start, stop, close -----------------------------------------------------------------
    @Override
    public void start() throws JMSException {
        checkOpen();
        fixClientId();
        synchronized (state) {
            started = true;
            state.notifyAll();
        }
        wakeups.nudge();
        for (AQjmsSession s : sessions()) {
            s.connectionStarted();
        }
    }

    /** Stops delivery; returns once no message listener of this connection is running
     *  (JMS 1.1 section 4.3.4), except when called from one. */
    @Override
    public void stop() throws JMSException {
        checkOpen();
        fixClientId();
        synchronized (state) {
            started = false;
            state.notifyAll();
        }
        wakeups.nudge();
        for (AQjmsSession s : sessions()) {
            s.quiesce();
        }
    }

    @Override
    public void close() throws JMSException {
        if (closed) {
            return;
        }
        synchronized (state) {
            started = false;
            state.notifyAll();
        }
        JMSException first = null;
        for (AQjmsSession s : sessions()) {
            try {
                s.close();
            } catch (JMSException e) {
                first = first == null ? e : first;
            }
        }
        closed = true;
        synchronized (state) {
            state.notifyAll();
        }
        wakeups.close();
        try {
            temporaries.close();
        } catch (JMSException e) {
            first = first == null ? e : first;
        }
        if (first != null) {
            throw first;
        }
    }

    // -- client id, metadata, exception listener -------------------------------------------
    @Override
    public String getClientID() throws JMSException {
        checkOpen();
        synchronized (state) {
            return clientId;
        }
    }

    @Override
    public void setClientID(String id) throws JMSException {
        checkOpen();
        synchronized (state) {
            if (clientIdFixed || clientId != null) {
                throw new IllegalStateException(
                        "JMS-240: the client ID is set before the connection is used, and once", "JMS-240");
            }
            if (id == null || id.isEmpty()) {
                throw new InvalidClientIDException("JMS-241: a client ID is not empty", "JMS-241");
            }
            clientId = id;
            clientIdFixed = true;
        }
    }

    @Override
    public ConnectionMetaData getMetaData() throws JMSException {
        checkOpen();
        fixClientId();
        return new AQjmsConnectionMetaData();
    }

    @Override
    public ExceptionListener getExceptionListener() throws JMSException {
        checkOpen();
        synchronized (state) {
            return exceptionListener;
        }
    }

    @Override
    public void setExceptionListener(ExceptionListener listener) throws JMSException {
        checkOpen();
        fixClientId();
        synchronized (state) {
            exceptionListener = listener;
        }
    }

    // -- the application server facilities JMS 1.1 makes optional (section 8) -----------------
    @Override
    public ConnectionConsumer createConnectionConsumer(Destination destination, String selector,
            ServerSessionPool pool, int maxMessages) throws JMSException {
        throw new AQjmsException("JMS-102", "Feature not supported: ConnectionConsumer (JMS 1.1 section 8, optional)");
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Queue queue, String selector,
            ServerSessionPool pool, int maxMessages) throws JMSException {
        return createConnectionConsumer((Destination) queue, selector, pool, maxMessages);
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Topic topic, String selector,
            ServerSessionPool pool, int maxMessages) throws JMSException {
        return createConnectionConsumer((Destination) topic, selector, pool, maxMessages);
    }

    @Override
    public ConnectionConsumer createDurableConnectionConsumer(Topic topic, String name, String selector,
            ServerSessionPool pool, int maxMessages) throws JMSException {
        return createConnectionConsumer((Destination) topic, selector, pool, maxMessages);
    }
}
