package pgaq.jms;

import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;

/**
 * JMS messages to and from what the engine stores, in the layout pgaq.jms.codec fixes (its
 * module docstring is the table), so that a message crosses between Java, Python, IDAP and
 * dbms_aq unchanged: the body and the header fields AQ has no column for in the payload of
 * the queue table's sys.aq$_jms_* type, the rest in AQ's message properties.
 */
final class PayloadCodec {
    private PayloadCodec() {
    }

    /**
     * The arguments of aq.enqueue_array for one message into a queue table of payload kind
     * {@code payloadKind} (aq.payload_kind: JMS_TEXT, JMS_BYTES, JMS_MAP, JMS_STREAM,
     * JMS_OBJECT, JMS_MESSAGE, OBJECT, RAW). {@code aqPriority} is the AQ priority (the
     * caller maps JMSPriority in Java EE compliant mode), {@code timeToLiveMs} the producer's
     * (0: never expires), {@code persistent} false for NON_PERSISTENT (AQ's BUFFERED). The
     * sender id and recipient list are the message's own (setSenderID, setRecipients; a
     * received message's sender is not sent again).
     * Another provider's message is read through the javax.jms interfaces. The message is
     * left unchanged. MessageFormatException: JMS-108 when the queue table cannot hold this
     * kind of message, JMS-161 for a string the database cannot store (U+0000, a lone
     * surrogate), JMS-193 for a RAW queue given more than a body, JMS-104 for an
     * AdtMessage with no payload.
     */
    static Outgoing encode(Message msg, String payloadKind, int aqPriority, long timeToLiveMs,
            boolean persistent) throws JMSException {
        AQjmsMessage m = own(msg);
        return ToEngine.encode(m, payloadKind, aqPriority, timeToLiveMs, persistent,
                m.sendersId(), m.getRecipients());
    }

    /** As {@link #encode(Message, String, int, long, boolean)} with this sender id and
     *  recipient list (null: the message's own), for another provider's message too. */
    static Outgoing encode(Message msg, String payloadKind, int aqPriority, long timeToLiveMs,
            boolean persistent, AQjmsAgent sender, AQjmsAgent[] recipients) throws JMSException {
        AQjmsMessage m = own(msg);
        return ToEngine.encode(m, payloadKind, aqPriority, timeToLiveMs, persistent,
                sender != null ? sender : m.sendersId(),
                recipients != null ? recipients.clone() : m.getRecipients());
    }

    private static AQjmsMessage own(Message msg) throws JMSException {
        return msg instanceof AQjmsMessage ? (AQjmsMessage) msg : Foreign.adopt(msg);
    }

    /**
     * The JMS message of a dequeued row from a queue table of payload kind
     * {@code payloadKind}: its class by the kind (JMS_MESSAGE: by message_type), the
     * headers (JMSDestination {@code destination}; JMSPriority and JMSExpiration by the
     * compliance mode), JMSX and JMS_Oracle properties, and properties and body read-only
     * (a Bytes or Stream body ready to read). A reply-to stored as an address alone,
     * "owner.name", is {@code resolver}'s destination there, or without a resolver an
     * AQjmsAgent with that address.
     */
    static AQjmsMessage decode(Dequeued row, String payloadKind, Destination destination,
            boolean j2eeCompliant, ReplyToResolver resolver) throws JMSException {
        return FromEngine.decode(row, payloadKind, destination, j2eeCompliant, resolver);
    }

    /** JMSTimestamp of a message just enqueued, from the msgid aq.enqueue_array returned:
     *  its first 8 bytes are the enqueue time in microseconds (codec.enqueue_ms). */
    static long enqueueMillis(String msgid) {
        return Long.parseUnsignedLong(msgid.substring(0, 16), 16) / 1000;
    }
}
