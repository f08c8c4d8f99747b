package pgaq.jms;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.NoSuchElementException;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.QueueBrowser;
import javax.jms.Topic;

/**
 * QueueBrowser, and Oracle's TopicBrowser (a durable subscriber's messages, not removed):
 * AQ's BROWSE dequeue, each next message from where the last one was, persistent messages
 * then NON_PERSISTENT ones. An enumeration reads as it goes, so it shows what is in the
 * queue when it gets there (JMS 1.1 section 5.9: a browser's view may change).
 */
public class AQjmsQueueBrowser implements QueueBrowser {
    private final AQjmsSession session;
    private final AQjmsDestination destination;
    private final String subscriber;
    private final String sqlSelector;
    private final String selector;
    private volatile boolean closed;
    /** The ids the current enumeration showed and purgeSeen has not purged: persistent [0],
     *  NON_PERSISTENT [1]. */
    private List<List<String>> seen = Arrays.asList(new ArrayList<>(), new ArrayList<>());

    AQjmsQueueBrowser(AQjmsSession session, AQjmsDestination destination, String subscriber,
            String sqlSelector, String selector) {
        this.session = session;
        this.destination = destination;
        this.subscriber = subscriber;
        this.sqlSelector = sqlSelector;
        this.selector = selector;
    }

    private void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("JMS-142: Browser is closed", "JMS-142");
        }
        session.checkOpen();
    }

    @Override
    public Queue getQueue() throws JMSException {
        checkOpen();
        return destination instanceof Queue ? (Queue) destination : null;
    }

    @Override
    public String getMessageSelector() throws JMSException {
        checkOpen();
        return selector;
    }

    /** Oracle's TopicBrowser.getTopic (null for a QueueBrowser). */
    public Topic getTopic() throws JMSException {
        checkOpen();
        return destination instanceof Topic ? (Topic) destination : null;
    }

    @Override
    public Enumeration<Message> getEnumeration() throws JMSException {
        checkOpen();
        DestInfo info = session.info(destination);
        List<List<String>> shown = Arrays.asList(new ArrayList<>(), new ArrayList<>());
        synchronized (this) {
            seen = shown;
        }
        return new Cursor(info, shown);
    }

    /**
     * Oracle's TopicBrowser.purgeSeen (Oracle Database Advanced Queuing User's Guide,
     * "TopicBrowser"): discard the messages the current enumeration has returned by
     * nextElement, as the durable subscriber's receive of them would; messages not yet seen
     * stay. In a transacted session the purge is part of its transaction: stable at commit,
     * undone by rollback; otherwise at once. It may be called again: it purges what was seen
     * since. A QueueBrowser has no purge (IllegalStateException, JMS-131).
     */
    public void purgeSeen() throws JMSException {
        checkOpen();
        if (subscriber == null) {
            throw new IllegalStateException("JMS-131: purgeSeen is a TopicBrowser's", "JMS-131");
        }
        List<String> persistent;
        List<String> buffered;
        synchronized (this) {
            persistent = new ArrayList<>(seen.get(0));
            buffered = new ArrayList<>(seen.get(1));
            seen.get(0).clear();
            seen.get(1).clear();
        }
        session.db().purge(session.info(destination), subscriber, persistent, buffered);
    }

    @Override
    public void close() throws JMSException {
        closed = true;
    }

    /** The messages one at a time, each read when asked for. */
    private final class Cursor implements Enumeration<Message> {
        private final DestInfo info;
        private final List<List<String>> shown;
        private Object[] position;
        private boolean buffered;
        private boolean done;
        private Message ahead;
        private String aheadId;
        private boolean aheadBuffered;

        Cursor(DestInfo info, List<List<String>> shown) {
            this.info = info;
            this.shown = shown;
        }

        @Override
        public boolean hasMoreElements() {
            if (ahead == null && !done) {
                try {
                    ahead = read();
                } catch (JMSException e) {
                    throw new java.lang.IllegalStateException(e.getMessage(), e);
                }
            }
            return ahead != null;
        }

        @Override
        public Message nextElement() {
            if (!hasMoreElements()) {
                throw new NoSuchElementException();
            }
            Message m = ahead;
            ahead = null;
            synchronized (AQjmsQueueBrowser.this) {  // seen: returned by nextElement
                shown.get(aheadBuffered ? 1 : 0).add(aheadId);
            }
            return m;
        }

        private Message read() throws JMSException {
            if (closed || session.isClosed()) {
                done = true;
                return null;
            }
            String consumer = info.multipleConsumers && !info.isExceptionQueue() ? subscriber : null;
            while (true) {
                Dequeued d = session.db().dequeue(info, consumer, "BROWSE", "NEXT_MESSAGE", null, sqlSelector,
                        position, buffered, false);
                if (d != null) {
                    position = d.position;
                    aheadId = d.msgid;
                    aheadBuffered = d.buffered;
                    return PayloadCodec.decode(d, info.payloadKind, destination, session.compliant(),
                            session.replyTo());
                }
                if (buffered) {
                    done = true;
                    return null;
                }
                buffered = true;  // then the NON_PERSISTENT ones
                position = null;
            }
        }
    }
}
