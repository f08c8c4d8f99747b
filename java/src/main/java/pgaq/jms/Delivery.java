package pgaq.jms;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageListener;
import javax.jms.Session;

/**
 * A session's message listeners, fed by one thread (JMS 1.1 section 4.4.17: a session
 * delivers serially). The thread runs while some consumer of the session has a listener; it
 * takes a message for each in turn, and when none has one waits on the connection's
 * listening connection for their queues' NOTIFYs (or a safety poll).
 *
 * AUTO_ACKNOWLEDGE and DUPS_OK: the message is taken in a transaction that the listener's
 * return commits; a listener that throws rolls it back, a failed attempt, and the message
 * comes again (JMSRedelivered, JMSXDeliveryCount up) until max_retries sends it to the
 * exception queue. Transacted and CLIENT_ACKNOWLEDGE sessions settle it themselves.
 */
final class Delivery implements Runnable {
    private static final Logger LOG = Logger.getLogger("pgaq.jms");
    private final AQjmsSession session;
    private final Object monitor = new Object();
    private Thread thread;
    private boolean delivering;
    private boolean closed;

    Delivery(AQjmsSession session) {
        this.session = session;
    }

    /** A listener was set or removed: start the thread if one is needed. */
    void changed() {
        synchronized (monitor) {
            if (!closed && thread == null && !listening().isEmpty()) {
                thread = new Thread(this, "pgaq-jms-listener-" + session.connection().id());
                thread.setDaemon(true);
                thread.start();
            }
            monitor.notifyAll();
        }
        session.connection().wakeups().wakeAll();
    }

    void wake() {
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    private List<AQjmsConsumer> listening() {
        List<AQjmsConsumer> out = new ArrayList<>();
        for (AQjmsConsumer c : session.consumers()) {
            if (c.listener() != null && !c.isClosed()) {
                out.add(c);
            }
        }
        return out;
    }

    /** Until no listener of this session runs (not when called from the listener itself). */
    void quiesce() {
        if (Thread.currentThread() == thread) {
            return;
        }
        synchronized (monitor) {
            while (delivering) {
                try {
                    monitor.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    void close() {
        Thread t;
        synchronized (monitor) {
            closed = true;
            monitor.notifyAll();
            t = thread;
        }
        session.connection().wakeups().wakeAll();
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        AQjmsConnection conn = session.connection();
        Wakeups w = conn.wakeups();
        long backoff = 50;
        while (true) {
            List<AQjmsConsumer> consumers;
            synchronized (monitor) {
                consumers = listening();
                if (closed || session.isClosed() || consumers.isEmpty()) {
                    thread = null;
                    monitor.notifyAll();
                    return;
                }
            }
            try {
                if (!conn.isStarted()) {
                    conn.awaitStarted(conn.factory().safetyPollMillis);
                    continue;
                }
                long epoch = w.epoch();
                Map<String, Long> seen = new HashMap<>();
                for (AQjmsConsumer c : consumers) {
                    seen.put(c.channel(), w.register(c.channel()));
                }
                boolean any = false;
                for (AQjmsConsumer c : consumers) {
                    any |= deliverOne(c);
                }
                backoff = 50;
                if (!any) {
                    w.awaitAny(seen, epoch, conn.factory().safetyPollMillis);
                }
            } catch (InterruptedException e) {
                return;
            } catch (JMSException e) {
                if (session.isClosed() || conn.isClosed()) {
                    continue;
                }
                LOG.log(Level.WARNING, "pgaq.jms: message listener delivery failed; trying again", e);
                try {
                    Thread.sleep(backoff);  // an outage: back off (reported by the connection)
                } catch (InterruptedException ie) {
                    return;
                }
                backoff = Math.min(backoff * 2, 5000);
            }
        }
    }

    /** Take one message for the consumer and hand it to its listener, under the session's
     *  lock (the application's own calls on the session wait for it). */
    private boolean deliverOne(AQjmsConsumer c) throws JMSException {
        SessionDatabase db = session.db();
        db.lock.lock();
        try {
            synchronized (monitor) {
                if (closed || !session.connection().isStarted()) {
                    return false;
                }
                delivering = true;
            }
            MessageListener l = c.listener();
            if (l == null || c.isClosed()) {
                return false;
            }
            int mode = session.ackMode();
            boolean autoSettle = mode == Session.AUTO_ACKNOWLEDGE || mode == Session.DUPS_OK_ACKNOWLEDGE;
            Message m = c.take(null, false, true);
            if (m == null) {
                return false;
            }
            boolean ok = true;
            try {
                l.onMessage(m);
            } catch (RuntimeException e) {
                ok = false;
                LOG.log(Level.WARNING, "pgaq.jms: the message listener of " + c + " threw: the message comes again", e);
            }
            if (autoSettle && !session.isClosed()) {
                if (ok) {
                    db.commit();
                } else {
                    db.rollback();
                }
            }
            return true;
        } finally {
            synchronized (monitor) {
                delivering = false;
                monitor.notifyAll();
            }
            db.lock.unlock();
        }
    }
}
