package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.MessageEOFException;
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
    private static final Map<String, Object> DATA = GoldenMessages.load();
    private static final Map<String, Object> ROW = map(DATA.get("row"));

    private static Map<String, Object> map(Object o) {
        return GoldenMessages.map(o);
    }

    private static List<Object> list(Object o) {
        return GoldenMessages.list(o);
    }

    private static int integer(Object o) {
        return GoldenMessages.integer(o);
    }

    private static List<Map<String, Object>> cases() {
        return GoldenMessages.cases(DATA);
    }

    static void assertSame(Object want, Object got, String what) {
        if (!GoldenMessages.same(got, want)) {
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
        AQjmsMessage m = GoldenMessages.build(send);
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
        assertEquals("ID:" + ROW.get("msgid"), m.getJMSMessageID());
        assertEquals(stamp, m.getJMSTimestamp());
        assertEquals(here, m.getJMSDestination());
        // class, header fields, properties and body as the case describes them
        assertSame(GoldenMessages.receivedShape(want), GoldenMessages.describe(m), "received");
        for (Object p : list(want.get("properties"))) {  // and as the JMS API hands them out
            List<Object> q = list(p);
            Object v = m.getObjectProperty((String) q.get(0));
            if (q.get(2) != null) {
                assertInstanceOf(javaClass((String) q.get(1)), v, q.toString());
            }
        }
        assertInstanceOf(Long.class, m.getObjectProperty("JMSXRcvTimestamp"));
        checkBody(c, m);
    }

    /** The body as the JMS API hands it out (describe read it as the codec holds it). */
    private static void checkBody(Map<String, Object> c, AQjmsMessage m) throws JMSException {
        Map<String, Object> send = map(c.get("send"));
        if (m instanceof AQjmsBytesMessage) {
            AQjmsBytesMessage b = (AQjmsBytesMessage) m;
            if ("bytes".equals(send.get("class"))) {  // read back as written
                for (Object op : list(send.get("body"))) {
                    String type = (String) list(op).get(0);
                    Typed t = GoldenMessages.value(type, list(op).get(1));
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
            for (Map.Entry<String, Typed> e : mm.items().entrySet()) {
                if (e.getValue().value != null) {
                    assertInstanceOf(javaClass(e.getValue().kind.json), mm.getObject(e.getKey()));
                }
            }
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
            for (Object w : list(map(c.get("received")).get("body"))) {
                List<Object> i = new ArrayList<>(list(w));
                if (i.get(1) == null) {
                    i.set(0, null);
                }
                expect.add(i);
            }
            assertSame(expect, items, "stream fields");
        } else if (m instanceof AQjmsObjectMessage) {
            AQjmsObjectMessage o = (AQjmsObjectMessage) m;
            Object body = send.get("body");
            assertEquals(body == null ? null : map(body).get("java_string"), o.getObject());
        } else if (m instanceof AQjmsAdtMessage) {
            for (Object v : ((AQjmsAdtMessage) m).getAdtPayload().values()) {
                assertTrue(v == null || v instanceof String || v instanceof BigDecimal, String.valueOf(v));
            }
        } else if (!(m instanceof AQjmsTextMessage)) {
            fail("a header-only message is never received: " + m);
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

    // -- the reply-to without a resolver ----------------------------------------------------
    @Test
    void replyToAddressWithoutResolverIsAnAgent() throws JMSException {
        for (Map<String, Object> c : cases()) {
            if (c.get("name").equals("reply_to_queue")) {
                AQjmsMessage m = PayloadCodec.decode(row(c), "JMS_TEXT", null, false, null);
                assertEquals(new AQjmsAgent(null, "scott.replies", 0), m.getJMSReplyTo());
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
