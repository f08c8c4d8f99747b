package pgaq.jms;

import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.Queue;
import javax.jms.QueueSender;
import javax.jms.Topic;
import javax.jms.TopicPublisher;

/**
 * MessageProducer, QueueSender and TopicPublisher. A send enqueues through aq.enqueue_array
 * in the session's transaction (transacted) or on its own (visible when send returns);
 * NON_PERSISTENT goes to the queue table's buffered companion (Oracle Database Advanced
 * Queuing User's Guide, "Buffered Messaging in JMS"). Priorities are Oracle's: in the default
 * mode a smaller number is more urgent and 1 the default; in Java EE compliant mode JMS's
 * 0-9, 9 the most urgent, 4 the default ("Java EE Compliance").
 */
public class AQjmsProducer implements QueueSender, TopicPublisher {
    private final AQjmsSession session;
    private final AQjmsDestination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private int priority;
    private long timeToLive;
    private boolean disableMessageId;
    private boolean disableTimestamp;
    private volatile boolean closed;

    AQjmsProducer(AQjmsSession session, AQjmsDestination destination) {
        this.session = session;
        this.destination = destination;
        this.priority = session.compliant() ? 4 : 1;
    }

    private void checkOpen() throws JMSException {
        if (closed) {
            throw new IllegalStateException("JMS-138: Producer is closed", "JMS-138");
        }
        session.checkOpen();
    }

    // -- defaults ---------------------------------------------------------------------------
    @Override
    public void setDisableMessageID(boolean value) throws JMSException {
        checkOpen();
        disableMessageId = value;  // a hint (JMS 1.1 section 3.4.3): AQ gives every message an id
    }

    @Override
    public boolean getDisableMessageID() throws JMSException {
        checkOpen();
        return disableMessageId;
    }

    @Override
    public void setDisableMessageTimestamp(boolean value) throws JMSException {
        checkOpen();
        disableTimestamp = value;  // a hint: the enqueue time is kept anyway
    }

    @Override
    public boolean getDisableMessageTimestamp() throws JMSException {
        checkOpen();
        return disableTimestamp;
    }

    @Override
    public void setDeliveryMode(int mode) throws JMSException {
        checkOpen();
        checkMode(mode);
        deliveryMode = mode;
    }

    @Override
    public int getDeliveryMode() throws JMSException {
        checkOpen();
        return deliveryMode;
    }

    @Override
    public void setPriority(int value) throws JMSException {
        checkOpen();
        checkPriority(value);
        priority = value;
    }

    @Override
    public int getPriority() throws JMSException {
        checkOpen();
        return priority;
    }

    @Override
    public void setTimeToLive(long ms) throws JMSException {
        checkOpen();
        timeToLive = ms;
    }

    @Override
    public long getTimeToLive() throws JMSException {
        checkOpen();
        return timeToLive;
    }

    @Override
    public Destination getDestination() throws JMSException {
        checkOpen();
        return destination;
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

    private static void checkMode(int mode) throws JMSException {
        if (mode != DeliveryMode.PERSISTENT && mode != DeliveryMode.NON_PERSISTENT) {
            throw new AQjmsException("JMS-101", "Invalid delivery mode " + mode);
        }
    }

    private void checkPriority(int p) throws JMSException {
        if (session.compliant() && (p < 0 || p > 9)) {
            throw new AQjmsException("JMS-207", "Invalid priority " + p
                    + ": 0 (lowest) to 9 (highest) in Java EE compliant mode");
        }
    }

    // -- sending ------------------------------------------------------------------------------
    @Override
    public void send(Message message) throws JMSException {
        sendTo(null, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Message message, int mode, int prio, long ttl) throws JMSException {
        sendTo(null, message, mode, prio, ttl, null);
    }

    @Override
    public void send(Destination dest, Message message) throws JMSException {
        sendTo(dest, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Destination dest, Message message, int mode, int prio, long ttl) throws JMSException {
        sendTo(dest, message, mode, prio, ttl, null);
    }

    @Override
    public void send(Queue queue, Message message) throws JMSException {
        sendTo(queue, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void send(Queue queue, Message message, int mode, int prio, long ttl) throws JMSException {
        sendTo(queue, message, mode, prio, ttl, null);
    }

    @Override
    public void publish(Message message) throws JMSException {
        sendTo(null, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void publish(Message message, int mode, int prio, long ttl) throws JMSException {
        sendTo(null, message, mode, prio, ttl, null);
    }

    @Override
    public void publish(Topic topic, Message message) throws JMSException {
        sendTo(topic, message, deliveryMode, priority, timeToLive, null);
    }

    @Override
    public void publish(Topic topic, Message message, int mode, int prio, long ttl) throws JMSException {
        sendTo(topic, message, mode, prio, ttl, null);
    }

    /** Oracle's publish with a recipient list: the message goes to these agents only, in
     *  place of the topic's subscribers (Oracle Database Advanced Queuing User's Guide,
     *  "Recipient Lists"). */
    public void publish(Topic topic, Message message, AQjmsAgent[] recipients) throws JMSException {
        sendTo(topic, message, deliveryMode, priority, timeToLive, recipients);
    }

    public void publish(Message message, AQjmsAgent[] recipients) throws JMSException {
        sendTo(null, message, deliveryMode, priority, timeToLive, recipients);
    }

    public void publish(Topic topic, Message message, AQjmsAgent[] recipients, int mode, int prio, long ttl)
            throws JMSException {
        sendTo(topic, message, mode, prio, ttl, recipients);
    }

    private void sendTo(Destination given, Message message, int mode, int prio, long ttl,
            AQjmsAgent[] recipients) throws JMSException {
        checkOpen();
        if (message == null) {
            throw new javax.jms.MessageFormatException("JMS-133: a message to send is not null", "JMS-133");
        }
        if (given != null && destination != null) {
            throw new UnsupportedOperationException(
                    "JMS-200: this producer has a destination: send to it, or make a producer without one");
        }
        if (given == null && destination == null) {
            throw new UnsupportedOperationException("JMS-200: Destination must be specified");
        }
        AQjmsDestination dest = given != null ? session.ours(given) : destination;
        checkMode(mode);
        checkPriority(prio);
        if (recipients != null && recipients.length == 0) {
            throw new AQjmsException("JMS-145", "Invalid recipient list: empty");
        }
        DestInfo info = session.info(dest);
        boolean compliant = session.compliant();
        int aqPriority = compliant ? 9 - prio : prio;
        long life = ttl > 0 ? ttl : 0;
        message.setJMSDestination(dest);
        message.setJMSDeliveryMode(mode);
        message.setJMSPriority(prio);
        AQjmsAgent sender = session.connection().noLocalTopics.contains(
                info.qualified().toLowerCase(java.util.Locale.ROOT))
                ? new AQjmsAgent(session.connection().localName, null, 0) : null;
        Outgoing o = PayloadCodec.encode(message, info.payloadKind, aqPriority, life,
                mode == DeliveryMode.PERSISTENT, sender, recipients);
        String id = session.db().enqueue(info, o);
        message.setJMSMessageID("ID:" + id);
        // JMSTimestamp is the enqueue time, as receivers and selectors read it: the id's first
        // eight bytes are its enqueue time in microseconds (aq.new_msgid)
        long stamp = Long.parseUnsignedLong(id.substring(0, 16), 16) / 1000;
        message.setJMSTimestamp(stamp);
        message.setJMSExpiration(life == 0 ? 0 : compliant ? stamp + life
                : stamp + ((life + 999) / 1000) * 1000);
    }

    @Override
    public void close() throws JMSException {
        closed = true;
        session.forget(this);
    }
}
