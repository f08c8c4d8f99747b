package pgaq.jms;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.jms.JMSException;

/**
 * Oracle's AdtMessage (Oracle Database Advanced Queuing User's Guide, "AdtMessage"): the
 * payload of a queue whose payload type is an object type. Oracle's takes an ORAData; here
 * the payload is the type's attributes by name, as the engine stores them (JSON): values
 * String, Boolean, a Number, null, a nested Map (an object attribute) or List (a
 * collection); a received number is a java.math.BigDecimal (JDBC's NUMBER). Only
 * JMS_OracleExcpQ and JMS_OracleDelay may be set as properties.
 */
public class AQjmsAdtMessage extends AQjmsMessage {
    private Map<String, Object> payload;

    public AQjmsAdtMessage() {
    }

    @Override
    String bodyKind() {
        return "OBJECT";
    }

    /** The attributes, or null when none are set; unmodifiable. */
    public Map<String, Object> getAdtPayload() {
        return payload == null ? null : Collections.unmodifiableMap(payload);
    }

    /** The attributes by name (copied: later changes to the map do not change the message). */
    public void setAdtPayload(Map<String, Object> attributes) throws JMSException {
        checkBodyWritable();
        payload = attributes == null ? null : new LinkedHashMap<>(attributes);
    }

    /** The payload as received, bypassing the read-only state (the codec). */
    void payload(Map<String, Object> attributes) {
        payload = attributes == null ? null : new LinkedHashMap<>(attributes);
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        payload = null;
    }
}
