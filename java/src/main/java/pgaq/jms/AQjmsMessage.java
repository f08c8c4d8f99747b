package pgaq.jms;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;

/**
 * A JMS message with no body (Session.createMessage), and the header and properties of every
 * other kind (JMS 1.1 3.4, 3.5; Oracle Database Advanced Queuing User's Guide, "JMS Message
 * Headers", "JMS Message Properties"). Properties are typed with JMS 1.1 3.5.4's conversions;
 * a received message's properties and body are read-only until clearProperties()/clearBody().
 * PayloadCodec maps messages to and from what the engine stores.
 */
public class AQjmsMessage implements Message {
    private String messageId;
    private long timestamp;
    private String correlationId;
    private Destination replyTo;
    private String type;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private long expiration;
    private boolean redelivered;
    private int priority = Message.DEFAULT_PRIORITY;
    private Destination destination;
    final PropertyTable properties = new PropertyTable();
    /** The body is read-only: a received message's, or a Bytes/Stream body after reset(). */
    boolean bodyReadOnly;
    private Acknowledger acknowledger;
    private AQjmsAgent senderId;
    /** The sender the database recorded on a received message: shown by getSenderID, never
     *  sent again (a forwarded message is the forwarder's, as in pgaq.jms). */
    private AQjmsAgent receivedSender;
    private AQjmsAgent[] recipients;
    /** Received by a receive that Oracle's server could stream (a CLIENT_ACKNOWLEDGE or
     *  transacted session's receive of a PERSISTENT message): see {@link Streaming}. */
    boolean streamable;

    public AQjmsMessage() {
    }

    /** The payload kind (aq.payload_kind) of this body; null for a header-only message. */
    String bodyKind() {
        return null;
    }

    // -- provider hooks ---------------------------------------------------------------------
    /** What acknowledge() calls: the receiving session's acknowledgement. */
    void setAcknowledger(Acknowledger a) {
        this.acknowledger = a;
    }

    /** Set a JMSX or JMS_Oracle property as the provider does: no read-only or name checks.
     *  The value is a boxed JMS type (or null, a null String). */
    void setProviderProperty(String name, Object value) {
        Kind k = Values.kindOf(value);
        properties.provider(name, k == null ? Typed.NULL_STRING
                : new Typed(k, value instanceof byte[] ? ((byte[]) value).clone() : value));
    }

    /** As a received message: properties and body read-only (Bytes and Stream bodies reset
     *  for reading). */
    void setReadOnly() {
        properties.readOnly = true;
        bodyReadOnly = true;
    }

    /** The recipients a send addresses (Oracle's publish(..., AQjmsAgent[] recipients)): set
     *  by the publisher; null: the topic's subscribers. */
    void setRecipients(AQjmsAgent[] list) {
        this.recipients = list == null ? null : list.clone();
    }

    AQjmsAgent[] getRecipients() {
        return recipients == null ? null : recipients.clone();
    }

    void checkBodyWritable() throws JMSException {
        if (bodyReadOnly) {
            throw Errors.notWriteable("JMS-163", "the body is read-only (a received message, or "
                    + "reset() was called): clearBody() first");
        }
    }

    // -- Oracle's extensions ----------------------------------------------------------------
    /** The sender agent (AQjmsMessage.getSenderID): as sent with setSenderID, or as the
     *  database recorded it on a received message. */
    public AQjmsAgent getSenderID() {
        return senderId != null ? senderId : receivedSender;
    }

    /** The sender id a send carries: the one set with setSenderID, not a received one. */
    AQjmsAgent sendersId() {
        return senderId;
    }

    void setReceivedSender(AQjmsAgent sender) {
        this.receivedSender = sender;
    }

    public void setSenderID(AQjmsAgent sender) {
        this.senderId = sender;
    }

    // -- header -----------------------------------------------------------------------------
    @Override
    public String getJMSMessageID() {
        return messageId;
    }

    @Override
    public void setJMSMessageID(String id) {
        this.messageId = id;
    }

    @Override
    public long getJMSTimestamp() {
        return timestamp;
    }

    @Override
    public void setJMSTimestamp(long timestamp) {
        this.timestamp = timestamp;
    }

    @Override
    public byte[] getJMSCorrelationIDAsBytes() {
        return correlationId == null ? null : correlationId.getBytes(StandardCharsets.UTF_8);
    }

    /** Stored as the UTF-8 text of the bytes (AQ's correlation is a string), as pgaq.jms. */
    @Override
    public void setJMSCorrelationIDAsBytes(byte[] id) {
        this.correlationId = id == null ? null : new String(id, StandardCharsets.UTF_8);
    }

    @Override
    public void setJMSCorrelationID(String id) {
        this.correlationId = id;
    }

    @Override
    public String getJMSCorrelationID() {
        return correlationId;
    }

    /** A Queue, a Topic or an AQjmsAgent (Oracle's guide, "JMS Message Headers"). */
    @Override
    public Destination getJMSReplyTo() {
        return replyTo;
    }

    @Override
    public void setJMSReplyTo(Destination replyTo) {
        this.replyTo = replyTo;
    }

    @Override
    public Destination getJMSDestination() {
        return destination;
    }

    @Override
    public void setJMSDestination(Destination destination) {
        this.destination = destination;
    }

    @Override
    public int getJMSDeliveryMode() {
        return deliveryMode;
    }

    @Override
    public void setJMSDeliveryMode(int mode) throws JMSException {
        if (mode != DeliveryMode.PERSISTENT && mode != DeliveryMode.NON_PERSISTENT) {
            throw new AQjmsException("JMS-101", "invalid delivery mode " + mode
                    + ": PERSISTENT (2) or NON_PERSISTENT (1)");
        }
        this.deliveryMode = mode;
    }

    @Override
    public boolean getJMSRedelivered() {
        return redelivered;
    }

    @Override
    public void setJMSRedelivered(boolean redelivered) {
        this.redelivered = redelivered;
    }

    @Override
    public String getJMSType() {
        return type;
    }

    @Override
    public void setJMSType(String type) {
        this.type = type;
    }

    @Override
    public long getJMSExpiration() {
        return expiration;
    }

    @Override
    public void setJMSExpiration(long expiration) {
        this.expiration = expiration;
    }

    /** In Oracle's default, non-compliant mode AQ's priority as it is (smaller is more
     *  urgent); in Java EE compliant mode 0-9, 9 the highest (stored as 9 - p). */
    @Override
    public int getJMSPriority() {
        return priority;
    }

    @Override
    public void setJMSPriority(int priority) {
        this.priority = priority;
    }

    // -- properties -------------------------------------------------------------------------
    private boolean adt() {
        return this instanceof AQjmsAdtMessage;
    }

    @Override
    public void clearProperties() {
        properties.clear();
    }

    @Override
    public boolean propertyExists(String name) {
        return name != null && properties.entries().containsKey(PropertyTable.canonical(name));
    }

    @Override
    public boolean getBooleanProperty(String name) throws JMSException {
        return (Boolean) properties.read(name, Kind.BOOLEAN);
    }

    @Override
    public byte getByteProperty(String name) throws JMSException {
        return (Byte) properties.read(name, Kind.BYTE);
    }

    @Override
    public short getShortProperty(String name) throws JMSException {
        return (Short) properties.read(name, Kind.SHORT);
    }

    @Override
    public int getIntProperty(String name) throws JMSException {
        return (Integer) properties.read(name, Kind.INT);
    }

    @Override
    public long getLongProperty(String name) throws JMSException {
        return (Long) properties.read(name, Kind.LONG);
    }

    @Override
    public float getFloatProperty(String name) throws JMSException {
        return (Float) properties.read(name, Kind.FLOAT);
    }

    @Override
    public double getDoubleProperty(String name) throws JMSException {
        return (Double) properties.read(name, Kind.DOUBLE);
    }

    @Override
    public String getStringProperty(String name) throws JMSException {
        return (String) properties.read(name, Kind.STRING);
    }

    /** The value as set (Boolean, Byte, Short, Integer, Long, Float, Double, String); null
     *  when there is none. */
    @Override
    public Object getObjectProperty(String name) throws JMSException {
        Typed t = properties.get(name);
        return t == null ? null : t.exported();
    }

    /** User properties and the JMSX/JMS_Oracle ones that have a value, in the order set. */
    @Override
    public Enumeration<?> getPropertyNames() {
        List<String> names = new ArrayList<>(properties.entries().keySet());
        return Collections.enumeration(names);
    }

    @Override
    public void setBooleanProperty(String name, boolean value) throws JMSException {
        properties.set(name, new Typed(Kind.BOOLEAN, value), adt());
    }

    @Override
    public void setByteProperty(String name, byte value) throws JMSException {
        properties.set(name, new Typed(Kind.BYTE, value), adt());
    }

    @Override
    public void setShortProperty(String name, short value) throws JMSException {
        properties.set(name, new Typed(Kind.SHORT, value), adt());
    }

    @Override
    public void setIntProperty(String name, int value) throws JMSException {
        properties.set(name, new Typed(Kind.INT, value), adt());
    }

    @Override
    public void setLongProperty(String name, long value) throws JMSException {
        properties.set(name, new Typed(Kind.LONG, value), adt());
    }

    @Override
    public void setFloatProperty(String name, float value) throws JMSException {
        properties.set(name, new Typed(Kind.FLOAT, value), adt());
    }

    @Override
    public void setDoubleProperty(String name, double value) throws JMSException {
        properties.set(name, new Typed(Kind.DOUBLE, value), adt());
    }

    @Override
    public void setStringProperty(String name, String value) throws JMSException {
        properties.set(name, new Typed(Kind.STRING, value), adt());
    }

    /** Boolean, Byte, Short, Integer, Long, Float, Double or String; anything else (null,
     *  Character, byte[]) is a MessageFormatException (JMS 1.1 3.5.4). */
    @Override
    public void setObjectProperty(String name, Object value) throws JMSException {
        Kind k = Values.kindOf(value);
        if (k == null || !k.isProperty()) {
            throw Errors.format(value == null ? "JMS-118" : Errors.CONVERSION, (value == null
                    ? "null" : value.getClass().getName()) + " is not a property value type");
        }
        properties.set(name, new Typed(k, value), adt());
    }

    // -- body and acknowledgement -----------------------------------------------------------
    /** Empty the body and make it writable (a header-only message has nothing to empty). */
    @Override
    public void clearBody() throws JMSException {
        bodyReadOnly = false;
    }

    /** Acknowledge this and every message its session delivered (CLIENT_ACKNOWLEDGE); a
     *  message not received through a session has nothing to acknowledge. */
    @Override
    public void acknowledge() throws JMSException {
        if (acknowledger != null) {
            acknowledger.acknowledge();
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + (messageId == null ? "(unsent)" : messageId)
                + "]";
    }
}
