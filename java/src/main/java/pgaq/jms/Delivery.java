package pgaq.jms;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.Condition;
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
 * listening connection for their queues' NOTIFYs (or a safety poll). Each listening
 * consumer is a waiter of its queue ({@link WaitGroups}): one whose share key other
 * waiters have is woken in turn with them, and looked at only when woken (or just after it
 * delivered a message, or when it is new).
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
    private volatile boolean closed;

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
        session.connection().wakeups().nudge();
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
        session.connection().wakeups().nudge();
        session.connection().wakeStopped();
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
        Wakeups wakeups = conn.wakeups();
        WaitGroups g = wakeups.groups();
        // each listening consumer's place among the connection's waiters, on this thread's
        // condition; due: those to look at without a wake-up (new, just delivered, started)
        Map<AQjmsConsumer, Waiter> waiters = new LinkedHashMap<>();
        Set<AQjmsConsumer> due = new HashSet<>();
        Condition wake = g.newCondition();
        long backoff = 50;
        boolean clean = false;
        try {
            while (true) {
                long epoch = g.epoch();
                List<AQjmsConsumer> consumers;
                synchronized (monitor) {
                    consumers = listening();
                    if (closed || session.isClosed() || consumers.isEmpty()) {
                        thread = null;
                        monitor.notifyAll();
                        clean = true;
                        return;
                    }
                }
                for (Iterator<Map.Entry<AQjmsConsumer, Waiter>> it = waiters.entrySet().iterator(); it.hasNext();) {
                    Map.Entry<AQjmsConsumer, Waiter> e = it.next();
                    if (!consumers.contains(e.getKey())) {
                        g.leave(e.getValue(), true);  // (a wake-up it did not use goes on)
                        due.remove(e.getKey());
                        it.remove();
                    }
                }
                try {
                    if (!conn.isStarted()) {
                        // (a connection closing stops it first: its sessions' close wakes this)
                        conn.awaitStarted(conn.factory().safetyPollMillis, () -> closed);
                        due.addAll(consumers);
                        continue;
                    }
                    for (AQjmsConsumer c : consumers) {
                        if (!waiters.containsKey(c)) {
                            waiters.put(c, wakeups.join(c.channel(), c.shareKey(), wake));
                            due.add(c);
                        }
                    }
                    boolean any = false;
                    for (AQjmsConsumer c : consumers) {
                        Waiter w = waiters.get(c);
                        if (g.clear(w) | due.remove(c)) {
                            if (deliverOne(c, w)) {
                                due.add(c);  // there may be more
                                any = true;
                            }
                        }
                    }
                    backoff = 50;
                    if (!any) {
                        boolean timed = false;
                        for (Waiter w : waiters.values()) {
                            timed |= !g.polled(w);
                        }
                        if (g.await(waiters.values(), wake, epoch, timed ? conn.factory().safetyPollMillis
                                : Long.MAX_VALUE)) {
                            for (Map.Entry<AQjmsConsumer, Waiter> e : waiters.entrySet()) {
                                if (!g.polled(e.getValue())) {
                                    // its own safety look (also when another consumer of
                                    // this thread was woken: the timer is the thread's)
                                    due.add(e.getKey());
                                }
                            }
                        }
                    }
                } catch (JMSException e) {
                    if (session.isClosed() || conn.isClosed()) {
                        continue;
                    }
                    LOG.log(Level.WARNING, "pgaq.jms: message listener delivery failed; trying again", e);
                    // as a waiter that leaves by an exception: its wake-ups go on, and it
                    // joins and looks afresh after the backoff
                    for (Waiter w : waiters.values()) {
                        g.leave(w, false);
                    }
                    waiters.clear();
                    Thread.sleep(backoff);  // an outage: back off (reported by the connection)
                    backoff = Math.min(backoff * 2, 5000);
                }
            }
        } catch (InterruptedException e) {
            return;
        } finally {
            for (Waiter w : waiters.values()) {
                g.leave(w, clean);
            }
        }
    }

    /** Take one message for the consumer and hand it to its listener, under the session's
     *  lock (the application's own calls on the session wait for it). */
    private boolean deliverOne(AQjmsConsumer c, Waiter w) throws JMSException {
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
            // the next waiting listener looks meanwhile (there may be more)
            session.connection().wakeups().groups().took(w);
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
