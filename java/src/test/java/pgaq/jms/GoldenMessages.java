package pgaq.jms;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Queue;
import javax.jms.Topic;

/**
 * The language-neutral messages of tests/golden/jms_messages.json (its "about" says the
 * format): a case's "send" description built as the message it describes, and a received
 * message described in the form of a case's "received". CodecGoldenTest checks the codec
 * offline with them; InteropTool sends and receives them through a live pgaq database, and
 * tests/java/test_java_interop.py compares what Python, Java, IDAP and dbms_aq see (the
 * Python side of both is tests/jms_golden.py).
 */
final class GoldenMessages {
    private GoldenMessages() {
    }

    /** The golden file under the repository (system property pgaq.repo, default "."). */
    static Map<String, Object> load() {
        String repo = System.getProperty("pgaq.repo", ".");
        return load(Paths.get(repo, "tests", "golden", "jms_messages.json"));
    }

    static Map<String, Object> load(Path file) {
        try {
            return map(Json.parse(new String(Files.readAllBytes(file), StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + " (system property pgaq.repo)", e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    static List<Map<String, Object>> cases(Map<String, Object> data) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object c : list(data.get("cases"))) {
            out.add(map(c));
        }
        return out;
    }

    static int integer(Object o) {
        return ((Number) o).intValue();
    }

    // -- building a case's message ----------------------------------------------------------
    /** A value of the description (the engine's JSON form) as the codec holds it. */
    static Typed value(String type, Object raw) {
        Typed t = ValueJson.fromJson(type.equals("utf") ? "string" : type, raw);
        Kind want = type.equals("utf") ? Kind.STRING : Kind.ofJson(type);
        if (raw != null && t.kind != want) {
            throw new IllegalArgumentException("not a " + type + ": " + raw);
        }
        return t;
    }

    /** A reply-to of the description: {queue|topic: "owner.name"} as a Queue or Topic that
     *  {@code destinations} makes, or {agent: [name, address, protocol]}. */
    static Destination destination(Object spec, Destinations destinations) throws JMSException {
        if (spec == null) {
            return null;
        }
        Map<String, Object> s = map(spec);
        if (s.containsKey("queue")) {
            return destinations.make((String) s.get("queue"), false);
        }
        if (s.containsKey("topic")) {
            return destinations.make((String) s.get("topic"), true);
        }
        return agent(s.get("agent"));
    }

    /** Queues and topics by "owner.name": stubs offline, a session's live. */
    interface Destinations {
        Destination make(String qualified, boolean topic) throws JMSException;
    }

    static final Destinations STUBS = (name, topic) -> topic
            ? new MessageStubs.StubTopic(name) : new MessageStubs.StubQueue(name);

    static AQjmsAgent agent(Object spec) {
        List<Object> a = list(spec);
        return new AQjmsAgent((String) a.get(0), (String) a.get(1), integer(a.get(2)));
    }

    /** The message a case's "send" describes, its reply-to a stub. */
    static AQjmsMessage build(Map<String, Object> send) throws JMSException {
        return build(send, STUBS);
    }

    static AQjmsMessage build(Map<String, Object> send, Destinations destinations) throws JMSException {
        Object body = send.get("body");
        AQjmsMessage m;
        switch ((String) send.get("class")) {
            case "message":
                m = new AQjmsMessage();
                break;
            case "text": {
                AQjmsTextMessage t = new AQjmsTextMessage();
                if (body != null) {
                    t.setText((String) map(body).get("text"));
                }
                m = t;
                break;
            }
            case "bytes": {
                AQjmsBytesMessage b = new AQjmsBytesMessage();
                for (Object op : list(body)) {
                    writeBytesOp(b, (String) list(op).get(0), list(op).get(1));
                }
                m = b;
                break;
            }
            case "map": {
                AQjmsMapMessage mm = new AQjmsMapMessage();
                for (Object item : list(body)) {
                    List<Object> i = list(item);
                    setMapItem(mm, (String) i.get(0), (String) i.get(1), i.get(2));
                }
                m = mm;
                break;
            }
            case "stream": {
                AQjmsStreamMessage s = new AQjmsStreamMessage();
                for (Object item : list(body)) {
                    writeStreamItem(s, (String) list(item).get(0), list(item).get(1));
                }
                m = s;
                break;
            }
            case "object": {
                AQjmsObjectMessage o = new AQjmsObjectMessage();
                if (body != null) {
                    o.setObject((String) map(body).get("java_string"));
                    String hex = Wire.hex(o.serialized(), true);
                    if (!hex.equals(map(body).get("serialized_hex"))) {  // Java's serialization is the case's
                        throw new IllegalArgumentException("serialized_hex is not the String's: " + hex);
                    }
                }
                m = o;
                break;
            }
            case "adt": {
                AQjmsAdtMessage a = new AQjmsAdtMessage();
                a.setAdtPayload(map(map(body).get("attributes")));
                m = a;
                break;
            }
            default:
                throw new IllegalArgumentException(String.valueOf(send.get("class")));
        }
        m.setJMSCorrelationID((String) send.get("correlation_id"));
        m.setJMSType((String) send.get("type"));
        m.setJMSReplyTo(destination(send.get("reply_to"), destinations));
        if (send.containsKey("sender")) {
            m.setSenderID(agent(send.get("sender")));
        }
        if (send.containsKey("recipients")) {
            List<AQjmsAgent> r = new ArrayList<>();
            for (Object a : list(send.get("recipients"))) {
                r.add(agent(a));
            }
            m.setRecipients(r.toArray(new AQjmsAgent[0]));
        }
        if (send.containsKey("properties")) {
            for (Object p : list(send.get("properties"))) {
                List<Object> q = list(p);
                setProperty(m, (String) q.get(0), (String) q.get(1), q.get(2));
            }
        }
        return m;
    }

    static void writeBytesOp(AQjmsBytesMessage b, String type, Object raw) throws JMSException {
        Object v = value(type, raw).value;
        switch (type) {
            case "boolean": b.writeBoolean((Boolean) v); break;
            case "byte": b.writeByte((Byte) v); break;
            case "short": b.writeShort((Short) v); break;
            case "char": b.writeChar((Character) v); break;
            case "int": b.writeInt((Integer) v); break;
            case "long": b.writeLong((Long) v); break;
            case "float": b.writeFloat((Float) v); break;
            case "double": b.writeDouble((Double) v); break;
            case "utf": b.writeUTF((String) v); break;
            default: b.writeBytes((byte[]) v); break;
        }
    }

    static void setMapItem(AQjmsMapMessage m, String name, String type, Object raw)
            throws JMSException {
        Object v = value(type, raw).value;
        switch (type) {
            case "boolean": m.setBoolean(name, (Boolean) v); break;
            case "byte": m.setByte(name, (Byte) v); break;
            case "short": m.setShort(name, (Short) v); break;
            case "char": m.setChar(name, (Character) v); break;
            case "int": m.setInt(name, (Integer) v); break;
            case "long": m.setLong(name, (Long) v); break;
            case "float": m.setFloat(name, (Float) v); break;
            case "double": m.setDouble(name, (Double) v); break;
            case "string": m.setString(name, (String) v); break;
            default: m.setBytes(name, (byte[]) v); break;
        }
    }

    static void writeStreamItem(AQjmsStreamMessage s, String type, Object raw) throws JMSException {
        Object v = value(type, raw).value;
        switch (type) {
            case "boolean": s.writeBoolean((Boolean) v); break;
            case "byte": s.writeByte((Byte) v); break;
            case "short": s.writeShort((Short) v); break;
            case "char": s.writeChar((Character) v); break;
            case "int": s.writeInt((Integer) v); break;
            case "long": s.writeLong((Long) v); break;
            case "float": s.writeFloat((Float) v); break;
            case "double": s.writeDouble((Double) v); break;
            case "string": s.writeString((String) v); break;
            default: s.writeBytes((byte[]) v); break;
        }
    }

    static void setProperty(AQjmsMessage m, String name, String type, Object raw)
            throws JMSException {
        Object v = value(type, raw).value;
        switch (type) {
            case "boolean": m.setBooleanProperty(name, (Boolean) v); break;
            case "byte": m.setByteProperty(name, (Byte) v); break;
            case "short": m.setShortProperty(name, (Short) v); break;
            case "int": m.setIntProperty(name, (Integer) v); break;
            case "long": m.setLongProperty(name, (Long) v); break;
            case "float": m.setFloatProperty(name, (Float) v); break;
            case "double": m.setDoubleProperty(name, (Double) v); break;
            default: m.setStringProperty(name, (String) v); break;
        }
    }

    // -- describing a received message ------------------------------------------------------
    /** The keys of a case's "received" that describe the message (the others, row, topics and
     *  j2ee_compliant, say how it was received). */
    static Map<String, Object> receivedShape(Map<String, Object> received) {
        Map<String, Object> out = new LinkedHashMap<>(received);
        out.remove("row");
        out.remove("topics");
        out.remove("j2ee_compliant");
        return out;
    }

    /**
     * A received message in the form of a case's "received": class, priority, expires_after
     * (JMSExpiration - JMSTimestamp, null: never), delivery_mode, redelivered, correlation_id,
     * type and reply_to when set, properties [name, type, value] in order without
     * JMSXRcvTimestamp, body (text {text}; bytes the body's hex; map [name, type, value]
     * sorted by name; stream [type, value]; object {serialized_hex}; adt {attributes}).
     */
    static Map<String, Object> describe(AQjmsMessage m) throws JMSException {
        Map<String, Object> out = new LinkedHashMap<>();
        String cls = m.getClass().getSimpleName();
        out.put("class", cls.startsWith("AQjms") ? cls.substring("AQjms".length()) : cls);
        out.put("priority", (long) m.getJMSPriority());
        out.put("expires_after", m.getJMSExpiration() == 0 ? null : m.getJMSExpiration() - m.getJMSTimestamp());
        out.put("delivery_mode", (long) m.getJMSDeliveryMode());
        out.put("redelivered", m.getJMSRedelivered());
        if (m.getJMSCorrelationID() != null) {
            out.put("correlation_id", m.getJMSCorrelationID());
        }
        if (m.getJMSType() != null) {
            out.put("type", m.getJMSType());
        }
        if (m.getJMSReplyTo() != null) {
            out.put("reply_to", replyToJson(m.getJMSReplyTo()));
        }
        List<Object> props = new ArrayList<>();
        for (Map.Entry<String, Typed> e : m.properties.entries().entrySet()) {
            if (!e.getKey().equals("JMSXRcvTimestamp")) {
                props.add(item(e.getKey(), e.getValue()));
            }
        }
        out.put("properties", props);
        out.put("body", body(m));
        return out;
    }

    private static List<Object> item(String name, Typed t) {
        List<Object> i = new ArrayList<>();
        if (name != null) {
            i.add(name);
        }
        i.add(t.kind.json);
        i.add(ValueJson.toJson(t));
        return i;
    }

    static Object replyToJson(Destination d) throws JMSException {
        if (d == null) {
            return null;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        if (d instanceof AQjmsAgent) {
            AQjmsAgent a = (AQjmsAgent) d;
            List<Object> spec = new ArrayList<>();
            spec.add(a.getName());
            spec.add(a.getAddress());
            spec.add((long) a.getProtocol());
            out.put("agent", spec);
        } else if (d instanceof Queue) {
            out.put("queue", ((Queue) d).getQueueName());
        } else {
            out.put("topic", ((Topic) d).getTopicName());
        }
        return out;
    }

    private static Object body(AQjmsMessage m) throws JMSException {
        if (m instanceof AQjmsTextMessage) {
            String text = ((AQjmsTextMessage) m).getText();
            if (text == null) {
                return null;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("text", text);
            return out;
        } else if (m instanceof AQjmsBytesMessage) {
            return Wire.hex(((AQjmsBytesMessage) m).body(), true);
        } else if (m instanceof AQjmsMapMessage) {
            List<Object> items = new ArrayList<>();
            for (Map.Entry<String, Typed> e : ((AQjmsMapMessage) m).items().entrySet()) {
                items.add(item(e.getKey(), e.getValue()));
            }
            items.sort(Comparator.comparing(i -> (String) list(i).get(0)));
            return items;
        } else if (m instanceof AQjmsStreamMessage) {
            List<Object> items = new ArrayList<>();
            for (Typed t : ((AQjmsStreamMessage) m).items()) {
                items.add(item(null, t));
            }
            return items;
        } else if (m instanceof AQjmsObjectMessage) {
            byte[] data = ((AQjmsObjectMessage) m).serialized();
            if (data == null) {
                return null;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("serialized_hex", Wire.hex(data, true));
            return out;
        } else if (m instanceof AQjmsAdtMessage) {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("attributes", ((AQjmsAdtMessage) m).getAdtPayload());
            return out;
        }
        return null;
    }

    // -- comparing JSON values --------------------------------------------------------------
    static BigDecimal decimal(Object n) {
        if (n instanceof BigDecimal) {
            return (BigDecimal) n;
        } else if (n instanceof BigInteger) {
            return new BigDecimal((BigInteger) n);
        } else if (n instanceof Float || n instanceof Double) {  // the digits JSON has of it
            return new BigDecimal(Json.shortest(((Number) n).doubleValue(), n instanceof Float));
        }
        return BigDecimal.valueOf(((Number) n).longValue());
    }

    /** JSON values equal as values: objects by key (not order), numbers by value. */
    static boolean same(Object got, Object want) {
        if (want instanceof Map) {
            if (!(got instanceof Map) || !map(got).keySet().equals(map(want).keySet())) {
                return false;
            }
            for (String k : map(want).keySet()) {
                if (!same(map(got).get(k), map(want).get(k))) {
                    return false;
                }
            }
            return true;
        }
        if (want instanceof List) {
            if (!(got instanceof List) || list(got).size() != list(want).size()) {
                return false;
            }
            for (int i = 0; i < list(want).size(); i++) {
                if (!same(list(got).get(i), list(want).get(i))) {
                    return false;
                }
            }
            return true;
        }
        if (want instanceof Number && got instanceof Number) {
            return decimal(got).compareTo(decimal(want)) == 0;
        }
        return want == null ? got == null : want.equals(got);
    }

    /** JSON text with every character beyond ASCII escaped (\\uXXXX, a surrogate pair as two,
     *  a lone surrogate as itself), so that no console encoding can change it. */
    static String asciiJson(Object value) {
        String text = Json.write(value);
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x7f) {
                out.append(c);
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.toString();
    }
}
