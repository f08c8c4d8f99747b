package pgaq.jms;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import javax.jms.Queue;
import javax.jms.Topic;

/**
 * A dequeued row to the JMS message it holds, exactly as pgaq.jms.codec.from_engine reads
 * it: the class of its body, the header fields, the JMSX and JMS_Oracle properties, and
 * properties and body read-only.
 */
final class FromEngine {
    private static final String[] KIND_OF_GENERIC = {
        "JMS_TEXT", "JMS_BYTES", "JMS_STREAM", "JMS_MAP", "JMS_OBJECT"};
    private static final int MIN_PRIORITY = 0;
    private static final int MAX_PRIORITY = 9;

    private FromEngine() {
    }

    static AQjmsMessage decode(Dequeued row, String payloadKind, Destination destination,
            boolean compliant, ReplyToResolver resolver) throws JMSException {
        String kind = payloadKind.toUpperCase(Locale.ROOT);
        Object payload = null;
        if (!kind.equals("RAW") && row.payloadJson != null) {
            try {
                payload = Json.parse(row.payloadJson);
            } catch (IllegalArgumentException e) {
                throw Errors.format(Errors.FORMAT, "the payload is not JSON: " + e.getMessage(), e);
            }
        }
        Map<?, ?> fields = payload instanceof Map ? (Map<?, ?>) payload : null;
        String bodyKind = kind;
        if (kind.equals("JMS_MESSAGE") && fields != null) {
            int type = messageType(fields.get("message_type"));
            bodyKind = type >= 0 && type < KIND_OF_GENERIC.length ? KIND_OF_GENERIC[type] : "JMS_TEXT";
        }
        AQjmsMessage m = create(bodyKind, payloadKind);
        if (m instanceof AQjmsAdtMessage) {
            @SuppressWarnings("unchecked")
            Map<String, Object> attributes = fields == null ? null
                    : (Map<String, Object>) AdtJson.received(fields);
            ((AQjmsAdtMessage) m).payload(attributes);
        } else if (kind.equals("RAW")) {
            ((AQjmsBytesMessage) m).body(row.payloadRaw == null ? new byte[0] : row.payloadRaw);
        } else if (fields != null) {
            header(m, fields.get("header"), resolver);
            body(m, fields);
        }
        Typed ttl = m.properties.remove(PropertyTable.TIME_TO_LIVE);
        m.setJMSMessageID("ID:" + row.msgid);
        long stamp = Math.floorDiv(row.enqueueMicros, 1000L);  // floored, as the selector's
        m.setJMSTimestamp(stamp);
        m.setJMSCorrelationID(row.correlation);
        m.setJMSPriority(priority(row.priority, compliant));
        m.setJMSExpiration(expiration(stamp, row.expiration, ttl == null ? null : ttl.value,
                compliant));
        m.setJMSRedelivered(row.attempts > 0);
        m.setJMSDeliveryMode(row.buffered ? DeliveryMode.NON_PERSISTENT : DeliveryMode.PERSISTENT);
        m.setJMSDestination(destination);
        m.setProviderProperty("JMSXDeliveryCount", row.attempts + 1);
        m.setProviderProperty("JMSXRcvTimestamp", System.currentTimeMillis());
        Integer state = state(row.state);
        if (state != null) {
            m.setProviderProperty("JMSXState", state);
        }
        m.setProviderProperty("JMS_OracleDelay", row.delay);
        if (row.exceptionQueue != null) {
            m.setProviderProperty("JMS_OracleExcpQ",
                    qualified(row.exceptionQueue, row.queueName, destination));
        }
        m.setProviderProperty("JMS_OracleOriginalMessageID", "ID:"
                + (row.originalMsgid == null || row.originalMsgid.isEmpty()
                        ? row.msgid : row.originalMsgid));
        if (row.senderName != null || row.senderAddress != null) {
            m.setReceivedSender(new AQjmsAgent(row.senderName, row.senderAddress, row.senderProtocol));
        }
        m.setReadOnly();
        return m;
    }

    private static int messageType(Object raw) {
        if (raw == null) {
            return 0;
        }
        if (raw instanceof Number) {
            return ((Number) raw).intValue();
        }
        try {
            return Integer.parseInt(ValueJson.text(raw).trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static AQjmsMessage create(String bodyKind, String payloadKind)
            throws MessageFormatException {
        switch (bodyKind) {
            case "JMS_TEXT": return new AQjmsTextMessage();
            case "JMS_BYTES": case "RAW": return new AQjmsBytesMessage();
            case "JMS_MAP": return new AQjmsMapMessage();
            case "JMS_STREAM": return new AQjmsStreamMessage();
            case "JMS_OBJECT": return new AQjmsObjectMessage();
            case "OBJECT": return new AQjmsAdtMessage();
            default:
                throw Errors.format("JMS-197", "no JMS message type for payload type " + payloadKind);
        }
    }

    /** JMSXState of AQ's state (JMS 1.1 table 3-3: 1 waiting, 2 ready, 3 expired, 4 retained). */
    private static Integer state(String s) {
        switch (s == null ? "" : s.toUpperCase(Locale.ROOT)) {
            case "WAITING": case "WAIT": return 1;
            case "READY": return 2;
            case "EXPIRED": return 3;
            case "PROCESSED": case "RETAINED": return 4;
            default: return null;
        }
    }

    /** The JMSPriority of a stored AQ priority (pgaq.jms.compliance.from_aq_priority). */
    static int priority(int aq, boolean compliant) {
        if (!compliant) {
            return aq;
        }
        long p = (long) MAX_PRIORITY - aq;
        return (int) Math.min(MAX_PRIORITY, Math.max(MIN_PRIORITY, p));
    }

    /**
     * JMSExpiration (codec.expiration_ms): 0 when AQ's expiration is null or negative;
     * JMSTimestamp + the recorded time to live in ms in Java EE compliant mode while AQ's
     * seconds are still that time to live's, else JMSTimestamp + AQ's seconds * 1000.
     */
    static long expiration(long stamp, Integer expiration, Object ttlMs, boolean compliant) {
        if (expiration == null || expiration < 0) {
            return 0;
        }
        if (compliant && (ttlMs instanceof Long || ttlMs instanceof Integer
                || ttlMs instanceof Short || ttlMs instanceof Byte)) {
            long ttl = ((Number) ttlMs).longValue();
            if (ttl > 0 && ttl / 1000 + (ttl % 1000 == 0 ? 0 : 1) == expiration) {
                return stamp + ttl;
            }
        }
        return stamp + expiration * 1000L;
    }

    /** An exception queue as "owner.name": the engine gives its name alone (it is in the
     *  queue's queue table, so in the queue's schema). */
    private static String qualified(String name, String queue, Destination destination)
            throws JMSException {
        if (name.contains(".")) {
            return name;
        }
        int dot = queue == null ? -1 : queue.lastIndexOf('.');
        if (dot > 0) {
            return queue.substring(0, dot) + "." + name;
        }
        String where = destination instanceof Queue ? ((Queue) destination).getQueueName()
                : destination instanceof Topic ? ((Topic) destination).getTopicName() : null;
        int d = where == null ? -1 : where.indexOf('.');
        return d > 0 ? where.substring(0, d) + "." + name : name;
    }

    // -- the payload's header and body -----------------------------------------------------
    private static boolean truthy(Object v) {
        return v != null && !(v instanceof String && ((String) v).isEmpty());
    }

    private static Destination replyTo(Object raw, ReplyToResolver resolver) throws JMSException {
        if (!(raw instanceof Map)) {
            return null;
        }
        Map<?, ?> a = (Map<?, ?>) raw;
        Object name = a.get("name");
        Object address = a.get("address");
        Object p = a.get("protocol");
        int protocol = p instanceof Number ? ((Number) p).intValue() : 0;
        if (!truthy(name) && !truthy(address)) {
            return null;
        }
        if (!truthy(name) && protocol == 0 && address instanceof String) {
            String addr = (String) address;
            int dot = addr.indexOf('.');
            String owner = dot < 0 ? "" : addr.substring(0, dot);
            String rest = dot < 0 ? "" : addr.substring(dot + 1);
            if (!owner.isEmpty() && !rest.isEmpty() && rest.indexOf('.') < 0 && rest.indexOf('@') < 0) {
                // an address alone: a destination in this database, whose kind the session knows
                return resolver != null ? resolver.destination(owner, rest)
                        : new AQjmsAgent(null, addr, 0);
            }
        }
        return new AQjmsAgent(truthy(name) ? ValueJson.text(name) : null,
                truthy(address) ? ValueJson.text(address) : null, protocol);
    }

    private static Typed typed(Object spec) {
        if (spec instanceof Map && ((Map<?, ?>) spec).containsKey("type")) {
            Map<?, ?> s = (Map<?, ?>) spec;
            Object type = s.get("type");
            return ValueJson.fromJson(type == null ? "" : ValueJson.text(type), s.get("value"));
        }
        return ValueJson.fromJson("", spec);  // a plain JSON scalar, as a SQL producer may write
    }

    /** Properties with a seq first, by seq; then the rest by name (codec._place). */
    private static final Comparator<Map.Entry<?, ?>> PLACE = (x, y) -> {
        Long a = seq(x.getValue());
        Long b = seq(y.getValue());
        if (a != null && b != null && !a.equals(b)) {
            return a.compareTo(b);
        }
        if ((a == null) != (b == null)) {
            return a == null ? 1 : -1;
        }
        return String.valueOf(x.getKey()).compareTo(String.valueOf(y.getKey()));
    };

    private static Long seq(Object spec) {
        Object s = spec instanceof Map ? ((Map<?, ?>) spec).get("seq") : null;
        return s instanceof Long ? (Long) s : null;
    }

    private static void header(AQjmsMessage m, Object raw, ReplyToResolver resolver)
            throws JMSException {
        if (!(raw instanceof Map)) {
            return;
        }
        Map<?, ?> h = (Map<?, ?>) raw;
        m.setJMSReplyTo(replyTo(h.get("replyto"), resolver));
        Object type = h.get("type");
        m.setJMSType(type == null ? null : ValueJson.text(type));
        Object props = h.get("properties");
        if (props instanceof Map) {
            List<Map.Entry<?, ?>> entries = new ArrayList<>(((Map<?, ?>) props).entrySet());
            entries.sort(PLACE);
            for (Map.Entry<?, ?> e : entries) {
                m.properties.provider(String.valueOf(e.getKey()), typed(e.getValue()));
            }
        }
        String[][] strings = {{"userid", "JMSXUserID"}, {"appid", "JMSXAppID"},
            {"groupid", "JMSXGroupID"}};
        for (String[] s : strings) {
            if (h.get(s[0]) != null) {
                m.setProviderProperty(s[1], ValueJson.text(h.get(s[0])));
            }
        }
        Object seq = h.get("groupseq");
        if (seq != null) {
            m.properties.provider("JMSXGroupSeq", ValueJson.fromJson("int", seq));
        }
    }

    private static byte[] bytes(Object raw) throws MessageFormatException {
        if (raw == null) {
            return null;
        }
        String text = ValueJson.text(raw);
        try {
            return Wire.unhex(text);
        } catch (IllegalArgumentException e) {
            throw Errors.format(Errors.FORMAT, "bytes_raw is not hexadecimal: '"
                    + PropertyTable.abbreviate(text) + "'", e);
        }
    }

    private static void body(AQjmsMessage m, Map<?, ?> payload) throws JMSException {
        if (m instanceof AQjmsTextMessage) {
            Object text = payload.get("text_vc");
            ((AQjmsTextMessage) m).text(text == null ? null : ValueJson.text(text));
        } else if (m instanceof AQjmsMapMessage) {
            Object items = payload.get("map");
            if (items instanceof Map) {
                Map<String, Typed> map = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) items).entrySet()) {
                    map.put(String.valueOf(e.getKey()), typed(e.getValue()));
                }
                ((AQjmsMapMessage) m).items(map);
            }
        } else if (m instanceof AQjmsStreamMessage) {
            byte[] data = bytes(payload.get("bytes_raw"));
            ((AQjmsStreamMessage) m).items(Wire.decodeStream(data == null ? new byte[0] : data));
        } else if (m instanceof AQjmsBytesMessage) {
            byte[] data = bytes(payload.get("bytes_raw"));
            ((AQjmsBytesMessage) m).body(data == null ? new byte[0] : data);
        } else if (m instanceof AQjmsObjectMessage) {
            ((AQjmsObjectMessage) m).serialized(bytes(payload.get("bytes_raw")));
        }
    }
}
