package pgaq.jms.conformance;

import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageFormatException;
import javax.jms.TextMessage;

/**
 * A TextMessage that belongs to no provider: JMS 1.1 3.12, "a provider must be prepared to
 * accept, from a client, a message whose implementation is not one of its own" (a foreign
 * message), and to set the header fields a send sets on it. Properties are kept as given,
 * without JMS's conversions (a send reads them with getObjectProperty).
 */
final class ForeignTextMessage implements TextMessage {
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private String text;
    private String messageId;
    private long timestamp;
    private String correlationId;
    private Destination replyTo;
    private Destination destination;
    private int deliveryMode = DeliveryMode.PERSISTENT;
    private boolean redelivered;
    private String type;
    private long expiration;
    private int priority = Message.DEFAULT_PRIORITY;

    ForeignTextMessage(String text) {
        this.text = text;
    }

    @Override public void setText(String s) { text = s; }
    @Override public String getText() { return text; }
    @Override public String getJMSMessageID() { return messageId; }
    @Override public void setJMSMessageID(String id) { messageId = id; }
    @Override public long getJMSTimestamp() { return timestamp; }
    @Override public void setJMSTimestamp(long t) { timestamp = t; }
    @Override public byte[] getJMSCorrelationIDAsBytes() throws JMSException {
        throw new JMSException("not supported by this foreign message");
    }
    @Override public void setJMSCorrelationIDAsBytes(byte[] id) throws JMSException {
        throw new JMSException("not supported by this foreign message");
    }
    @Override public void setJMSCorrelationID(String id) { correlationId = id; }
    @Override public String getJMSCorrelationID() { return correlationId; }
    @Override public Destination getJMSReplyTo() { return replyTo; }
    @Override public void setJMSReplyTo(Destination d) { replyTo = d; }
    @Override public Destination getJMSDestination() { return destination; }
    @Override public void setJMSDestination(Destination d) { destination = d; }
    @Override public int getJMSDeliveryMode() { return deliveryMode; }
    @Override public void setJMSDeliveryMode(int mode) { deliveryMode = mode; }
    @Override public boolean getJMSRedelivered() { return redelivered; }
    @Override public void setJMSRedelivered(boolean r) { redelivered = r; }
    @Override public String getJMSType() { return type; }
    @Override public void setJMSType(String t) { type = t; }
    @Override public long getJMSExpiration() { return expiration; }
    @Override public void setJMSExpiration(long e) { expiration = e; }
    @Override public int getJMSPriority() { return priority; }
    @Override public void setJMSPriority(int p) { priority = p; }
    @Override public void clearProperties() { properties.clear(); }
    @Override public boolean propertyExists(String name) { return properties.containsKey(name); }

    @Override public boolean getBooleanProperty(String name) throws JMSException {
        return (Boolean) typed(name, Boolean.class);
    }
    @Override public byte getByteProperty(String name) throws JMSException {
        return (Byte) typed(name, Byte.class);
    }
    @Override public short getShortProperty(String name) throws JMSException {
        return (Short) typed(name, Short.class);
    }
    @Override public int getIntProperty(String name) throws JMSException {
        return (Integer) typed(name, Integer.class);
    }
    @Override public long getLongProperty(String name) throws JMSException {
        return (Long) typed(name, Long.class);
    }
    @Override public float getFloatProperty(String name) throws JMSException {
        return (Float) typed(name, Float.class);
    }
    @Override public double getDoubleProperty(String name) throws JMSException {
        return (Double) typed(name, Double.class);
    }
    @Override public String getStringProperty(String name) {
        Object v = properties.get(name);
        return v == null ? null : v.toString();
    }
    @Override public Object getObjectProperty(String name) { return properties.get(name); }
    @Override public Enumeration<String> getPropertyNames() {
        return Collections.enumeration(properties.keySet());
    }
    @Override public void setBooleanProperty(String name, boolean v) { properties.put(name, v); }
    @Override public void setByteProperty(String name, byte v) { properties.put(name, v); }
    @Override public void setShortProperty(String name, short v) { properties.put(name, v); }
    @Override public void setIntProperty(String name, int v) { properties.put(name, v); }
    @Override public void setLongProperty(String name, long v) { properties.put(name, v); }
    @Override public void setFloatProperty(String name, float v) { properties.put(name, v); }
    @Override public void setDoubleProperty(String name, double v) { properties.put(name, v); }
    @Override public void setStringProperty(String name, String v) { properties.put(name, v); }
    @Override public void setObjectProperty(String name, Object v) { properties.put(name, v); }
    @Override public void acknowledge() { }
    @Override public void clearBody() { text = null; }

    private Object typed(String name, Class<?> type) throws JMSException {
        Object v = properties.get(name);
        if (!type.isInstance(v)) {
            throw new MessageFormatException(name + " is not a " + type.getSimpleName());
        }
        return v;
    }
}
