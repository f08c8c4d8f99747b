package pgaq.jms;

import java.util.Enumeration;
import java.util.NoSuchElementException;
import javax.jms.IllegalStateException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.QueueBrowser;

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

    @Override
    public Enumeration<Message> getEnumeration() throws JMSException {
        checkOpen();
        DestInfo info = session.info(destination);
        return new Cursor(info);
    }

    @Override
    public void close() throws JMSException {
        closed = true;
    }

    /** The messages one at a time, each read when asked for. */
    private final class Cursor implements Enumeration<Message> {
        private final DestInfo info;
        private Object[] position;
        private boolean buffered;
        private boolean done;
        private Message ahead;

        Cursor(DestInfo info) {
            this.info = info;
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
