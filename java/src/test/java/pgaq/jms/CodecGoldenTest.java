package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.MessageEOFException;
import javax.jms.Queue;
import javax.jms.Topic;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The golden vectors of tests/golden/jms_messages.json, which tests/unit/test_jms_golden.py
 * checks against the Python codec: each message, built from its description, encodes to
 * exactly the expected AQ properties and payload (compared as JSON values, not text), and
 * the expected payload, dequeued, reads back as the message sent, values and types.
 */
class CodecGoldenTest {
    private static final Map<String, Object> DATA = load();
    private static final Map<String, Object> ROW = map(DATA.get("row"));

    private static Map<String, Object> load() {
        String repo = System.getProperty("pgaq.repo", ".");
        Path file = Paths.get(repo, "tests", "golden", "jms_messages.json");
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

    private static List<Map<String, Object>> cases() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object c : list(DATA.get("cases"))) {
            out.add(map(c));
        }
        return out;
    }

    private static int integer(Object o) {
        return ((Number) o).intValue();
    }

    // -- building a case's message ----------------------------------------------------------
    /** A value of the description (the engine's JSON form) as the codec holds it. */
    static Typed value(String type, Object raw) {
        Typed t = ValueJson.fromJson(type.equals("utf") ? "string" : type, raw);
        if (raw != null) {
            assertEquals(type.equals("utf") ? Kind.STRING : Kind.ofJson(type), t.kind, type + " " + raw);
        }
        return t;
    }

    static Destination destination(Object spec) {
        if (spec == null) {
            return null;
        }
        Map<String, Object> s = map(spec);
        if (s.containsKey("queue")) {
            return new MessageStubs.StubQueue((String) s.get("queue"));
        }
        if (s.containsKey("topic")) {
            return new MessageStubs.StubTopic((String) s.get("topic"));
        }
        return agent(s.get("agent"));
    }

    static AQjmsAgent agent(Object spec) {
        List<Object> a = list(spec);
        return new AQjmsAgent((String) a.get(0), (String) a.get(1), integer(a.get(2)));
    }

    static AQjmsMessage build(Map<String, Object> send) throws JMSException {
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
                    // Java's serialization of the String is the case's bytes
                    assertEquals(map(body).get("serialized_hex"), Wire.hex(o.serialized(), true));
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
        m.setJMSReplyTo(destination(send.get("reply_to")));
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

    static Object readBytesOp(AQjmsBytesMessage b, String type, int size) throws JMSException {
        switch (type) {
            case "boolean": return b.readBoolean();
            case "byte": return b.readByte();
            case "short": return b.readShort();
            case "char": return b.readChar();
            case "int": return b.readInt();
            case "long": return b.readLong();
            case "float": return b.readFloat();
            case "double": return b.readDouble();
            case "utf": return b.readUTF();
            default: {
                byte[] buf = new byte[size];
                assertEquals(size, size == 0 ? 0 : b.readBytes(buf));
                return buf;
            }
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

    // -- comparing JSON values --------------------------------------------------------------
    static BigDecimal decimal(Object n) {
        if (n instanceof BigDecimal) {
            return (BigDecimal) n;
        } else if (n instanceof BigInteger) {
            return new BigDecimal((BigInteger) n);
        } else if (n instanceof Float || n instanceof Double) {
            return new BigDecimal(n.toString());  // the shortest digits, as the JSON text
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

    static void assertSame(Object want, Object got, String what) {
        if (!same(got, want)) {
            fail(what + ":\n  expected " + Json.write(want) + "\n  got      " + Json.write(got));
        }
    }

    // -- encoding ---------------------------------------------------------------------------
    @TestFactory
    Stream<DynamicTest> encode() {
        return cases().stream().map(c -> DynamicTest.dynamicTest((String) c.get("name"), () -> encode(c)));
    }

    static Outgoing encodeCase(Map<String, Object> c) throws JMSException {
        Map<String, Object> send = map(c.get("send"));
        AQjmsMessage m = build(send);
        Object ttl = send.get("time_to_live");
        Object priority = send.get("priority");
        return PayloadCodec.encode(m, (String) c.get("payload_kind"),
                priority == null ? 1 : integer(priority), ttl == null ? 0 : ((Number) ttl).longValue(),
                !"NON_PERSISTENT".equals(send.get("delivery_mode")));
    }

    private static void encode(Map<String, Object> c) throws JMSException {
        Map<String, Object> expected = map(c.get("expected"));
        if (expected.containsKey("error")) {
            JMSException e = assertThrows(JMSException.class, () -> encodeCase(c));
            assertEquals(expected.get("error"), e.getErrorCode(), e.getMessage());
            return;
        }
        Outgoing out = encodeCase(c);
        List<Object> props = list(Json.parse(out.properties));
        assertEquals(1, props.size());
        assertSame(expected.get("properties"), props.get(0), "properties");
        if ("RAW".equals(c.get("payload_kind"))) {
            assertNull(out.payloads);
            assertEquals(1, out.raw.length);
            assertEquals(expected.get("raw"), Wire.hex(out.raw[0], true));
        } else {
            assertNull(out.raw);
            List<Object> payloads = list(Json.parse(out.payloads));
            assertEquals(1, payloads.size());
            assertSame(expected.get("payload"), payloads.get(0), "payload");
        }
    }

    // -- decoding ---------------------------------------------------------------------------
    static Dequeued row(Map<String, Object> c) {
        Map<String, Object> expected = map(c.get("expected"));
        Map<String, Object> props = map(expected.get("properties"));
        Map<String, Object> fields = new java.util.HashMap<>(ROW);
        Map<String, Object> received = map(c.get("received"));
        if (received.containsKey("row")) {
            fields.putAll(map(received.get("row")));
        }
        Dequeued d = new Dequeued();
        d.msgid = (String) fields.get("msgid");
        d.queueName = (String) fields.get("queue");
        d.correlation = (String) props.get("correlation");
        d.priority = integer(props.get("priority"));
        d.delay = integer(props.get("delay"));
        d.expiration = props.get("expiration") == null ? null : integer(props.get("expiration"));
        d.enqueueMicros = ((Number) fields.get("enqueue_micros")).longValue();
        d.state = (String) fields.get("state");
        d.attempts = integer(fields.get("attempts"));
        d.exceptionQueue = (String) (fields.containsKey("exception_queue")
                ? fields.get("exception_queue") : props.get("exception_queue"));
        if (props.get("sender_id") != null) {
            d.senderName = (String) props.get("sender_name");
            d.senderAddress = (String) props.get("sender_address");
            d.senderProtocol = integer(props.get("sender_protocol"));
        }
        d.originalMsgid = (String) fields.get("original_msgid");
        if ("RAW".equals(c.get("payload_kind"))) {
            d.payloadRaw = Wire.unhex((String) expected.get("raw"));
        } else {
            d.payloadJson = Json.write(expected.get("payload"));
        }
        d.buffered = "BUFFERED".equals(props.get("delivery_mode"));
        return d;
    }

    @TestFactory
    Stream<DynamicTest> decode() {
        return cases().stream().filter(c -> c.containsKey("received"))
                .map(c -> DynamicTest.dynamicTest((String) c.get("name"), () -> decode(c)));
    }

    static Object replyToJson(Destination d) throws JMSException {
        if (d == null) {
            return null;
        }
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        if (d instanceof AQjmsAgent) {
            AQjmsAgent a = (AQjmsAgent) d;
            List<Object> spec = new ArrayList<>();
            spec.add(a.getName());
            spec.add(a.getAddress());
            spec.add((long) a.getProtocol());
            out.put("agent", spec);
        } else if (d instanceof Queue) {
            out.put("queue", ((MessageStubs.StubQueue) d).getQueueName());
        } else {
            out.put("topic", ((Topic) d).getTopicName());
        }
        return out;
    }

    private static Class<?> javaClass(String kind) {
        switch (kind) {
            case "boolean": return Boolean.class;
            case "byte": return Byte.class;
            case "short": return Short.class;
            case "char": return Character.class;
            case "int": return Integer.class;
            case "long": return Long.class;
            case "float": return Float.class;
            case "double": return Double.class;
            case "string": return String.class;
            default: return byte[].class;
        }
    }

    private static void decode(Map<String, Object> c) throws JMSException {
        Map<String, Object> want = map(c.get("received"));
        Set<String> topics = new HashSet<>();
        if (want.containsKey("topics")) {
            for (Object t : list(want.get("topics"))) {
                topics.add((String) t);
            }
        }
        ReplyToResolver resolver = (owner, name) -> topics.contains(owner + "." + name)
                ? new MessageStubs.StubTopic(owner + "." + name)
                : new MessageStubs.StubQueue(owner + "." + name);
        Destination here = new MessageStubs.StubQueue((String) ROW.get("queue"));
        AQjmsMessage m = PayloadCodec.decode(row(c), (String) c.get("payload_kind"), here,
                Boolean.TRUE.equals(want.get("j2ee_compliant")), resolver);
        long stamp = ((Number) ROW.get("enqueue_micros")).longValue() / 1000;
        assertEquals("AQjms" + want.get("class"), m.getClass().getSimpleName());
        assertEquals("ID:" + ROW.get("msgid"), m.getJMSMessageID());
        assertEquals(stamp, m.getJMSTimestamp());
        assertEquals(integer(want.get("priority")), m.getJMSPriority());
        Object after = want.get("expires_after");
        assertEquals(after == null ? 0 : stamp + ((Number) after).longValue(), m.getJMSExpiration());
        assertEquals(integer(want.get("delivery_mode")), m.getJMSDeliveryMode());
        assertEquals(want.get("redelivered"), m.getJMSRedelivered());
        assertEquals(want.get("correlation_id"), m.getJMSCorrelationID());
        assertEquals(want.get("type"), m.getJMSType());
        assertSame(want.get("reply_to"), replyToJson(m.getJMSReplyTo()), "JMSReplyTo");
        assertEquals(here, m.getJMSDestination());

        List<Object> props = new ArrayList<>();
        for (Map.Entry<String, Typed> e : m.properties.entries().entrySet()) {
            if (!e.getKey().equals("JMSXRcvTimestamp")) {
                List<Object> p = new ArrayList<>();
                p.add(e.getKey());
                p.add(e.getValue().kind.json);
                p.add(ValueJson.toJson(e.getValue()));
                props.add(p);
            }
        }
        assertSame(want.get("properties"), props, "properties");
        for (Object p : list(want.get("properties"))) {  // and as the JMS API hands them out
            List<Object> q = list(p);
            Object v = m.getObjectProperty((String) q.get(0));
            if (q.get(2) != null) {
                assertInstanceOf(javaClass((String) q.get(1)), v, q.toString());
            }
        }
        assertInstanceOf(Long.class, m.getObjectProperty("JMSXRcvTimestamp"));
        checkBody(c, m, want.get("body"));
    }

    private static void checkBody(Map<String, Object> c, AQjmsMessage m, Object want)
            throws JMSException {
        Map<String, Object> send = map(c.get("send"));
        if (m instanceof AQjmsTextMessage) {
            String text = ((AQjmsTextMessage) m).getText();
            assertEquals(want == null ? null : map(want).get("text"), text);
        } else if (m instanceof AQjmsBytesMessage) {
            AQjmsBytesMessage b = (AQjmsBytesMessage) m;
            assertEquals(want, Wire.hex(b.body(), true));
            if ("bytes".equals(send.get("class"))) {  // read back as written
                for (Object op : list(send.get("body"))) {
                    String type = (String) list(op).get(0);
                    Typed t = value(type, list(op).get(1));
                    int size = t.value instanceof byte[] ? ((byte[]) t.value).length : 0;
                    Object got = readBytesOp(b, type, size);
                    if (got instanceof byte[]) {
                        assertArrayEquals((byte[]) t.value, (byte[]) got);
                    } else {
                        assertEquals(t.value, got);
                    }
                }
            }
            assertThrows(MessageEOFException.class, b::readByte);
        } else if (m instanceof AQjmsMapMessage) {
            AQjmsMapMessage mm = (AQjmsMapMessage) m;
            List<Object> items = new ArrayList<>();
            for (Map.Entry<String, Typed> e : mm.items().entrySet()) {
                List<Object> i = new ArrayList<>();
                i.add(e.getKey());
                i.add(e.getValue().kind.json);
                i.add(ValueJson.toJson(e.getValue()));
                items.add(i);
                if (e.getValue().value != null) {
                    assertInstanceOf(javaClass(e.getValue().kind.json), mm.getObject(e.getKey()));
                }
            }
            items.sort(Comparator.comparing(i -> (String) list(i).get(0)));
            assertSame(want, items, "map items");
        } else if (m instanceof AQjmsStreamMessage) {
            AQjmsStreamMessage s = (AQjmsStreamMessage) m;
            List<Object> items = new ArrayList<>();
            while (true) {
                Object v;
                try {
                    v = s.readObject();
                } catch (MessageEOFException end) {
                    break;
                }
                Typed t = v == null ? null : Values.typedObject(v);
                List<Object> i = new ArrayList<>();
                i.add(t == null ? null : t.kind.json);
                i.add(t == null ? null : ValueJson.toJson(t));
                items.add(i);
            }
            // readObject cannot tell a null String from a null byte[]: compare kinds of nulls apart
            List<Object> expect = new ArrayList<>();
            for (Object w : list(want)) {
                List<Object> i = new ArrayList<>(list(w));
                if (i.get(1) == null) {
                    i.set(0, null);
                }
                expect.add(i);
            }
            assertSame(expect, items, "stream fields");
            List<Object> typed = new ArrayList<>();
            for (Typed t : s.items()) {
                List<Object> i = new ArrayList<>();
                i.add(t.kind.json);
                i.add(ValueJson.toJson(t));
                typed.add(i);
            }
            assertSame(want, typed, "stream fields and their types");
        } else if (m instanceof AQjmsObjectMessage) {
            AQjmsObjectMessage o = (AQjmsObjectMessage) m;
            byte[] data = o.serialized();
            if (want == null) {
                assertNull(data);
                assertNull(o.getObject());
            } else {
                assertEquals(map(want).get("serialized_hex"), Wire.hex(data, true));
                assertEquals(map(send.get("body")).get("java_string"), o.getObject());
            }
        } else if (m instanceof AQjmsAdtMessage) {
            Map<String, Object> attributes = ((AQjmsAdtMessage) m).getAdtPayload();
            assertSame(map(want).get("attributes"), attributes, "attributes");
            for (Object v : attributes.values()) {
                assertTrue(v == null || v instanceof String || v instanceof BigDecimal, String.valueOf(v));
            }
        } else {
            fail("a header-only message is never received: " + m);
        }
    }

    // -- the reply-to without a resolver ----------------------------------------------------
    @Test
    void replyToAddressWithoutResolverIsAnAgent() throws JMSException {
        for (Map<String, Object> c : cases()) {
            if (c.get("name").equals("reply_to_queue")) {
                AQjmsMessage m = PayloadCodec.decode(row(c), "JMS_TEXT", null, false, null);
                assertEquals(new AQjmsAgent(null, "SCOTT.REPLIES", 0), m.getJMSReplyTo());
                return;
            }
        }
        fail("no case reply_to_queue");
    }

    @Test
    void everyCaseHasAResult() {
        assertTrue(cases().size() >= 30);
        for (Map<String, Object> c : cases()) {
            assertNotNull(c.get("expected"), String.valueOf(c.get("name")));
        }
        assertEquals(DeliveryMode.PERSISTENT, 2);
    }
}
