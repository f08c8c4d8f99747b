package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageFormatException;
import org.apache.activemq.command.ActiveMQBytesMessage;
import org.apache.activemq.command.ActiveMQMapMessage;
import org.apache.activemq.command.ActiveMQMessage;
import org.apache.activemq.command.ActiveMQObjectMessage;
import org.apache.activemq.command.ActiveMQQueue;
import org.apache.activemq.command.ActiveMQStreamMessage;
import org.apache.activemq.command.ActiveMQTextMessage;
import org.junit.jupiter.api.Test;

/** PayloadCodec beyond the golden vectors: other providers' messages, AdtMessage payloads,
 *  what SQL producers may store, the compliance rules, and the JSON it reads. */
class CodecTest {
    private static Object payload(Outgoing o) {
        return CodecGoldenTest.list(Json.parse(o.payloads)).get(0);
    }

    private static void assertSameEncoding(Message foreign, AQjmsMessage own, String kind)
            throws JMSException {
        Outgoing a = PayloadCodec.encode(foreign, kind, 3, 1500, true);
        Outgoing b = PayloadCodec.encode(own, kind, 3, 1500, true);
        CodecGoldenTest.assertSame(Json.parse(b.properties), Json.parse(a.properties), "properties");
        CodecGoldenTest.assertSame(Json.parse(b.payloads), Json.parse(a.payloads), "payloads");
    }

    private static void commonHeaders(Message m) throws JMSException {
        m.setJMSCorrelationID("corr");
        m.setJMSType("type");
        m.setIntProperty("count", 3);
        m.setStringProperty("JMSXGroupID", "g");
        m.setIntProperty("JMSXGroupSeq", 2);
        m.setDoubleProperty("ratio", 0.5);
    }

    private static void commonHeaders(AQjmsMessage m) throws JMSException {
        commonHeaders((Message) m);
        m.setJMSReplyTo(new MessageStubs.StubQueue("SCOTT.REPLIES"));
    }

    @Test
    void foreignTextMessageIsReadThroughTheInterfaces() throws JMSException {
        ActiveMQTextMessage f = new ActiveMQTextMessage();
        f.setText("h\u00e9llo \ud83d\ude00");
        commonHeaders(f);
        f.setJMSReplyTo(new ActiveMQQueue("SCOTT.REPLIES"));
        f.setRedeliveryCounter(2);  // a received one's JMSXDeliveryCount: the provider's, left out
        AQjmsTextMessage own = new AQjmsTextMessage();
        own.setText("h\u00e9llo \ud83d\ude00");
        commonHeaders(own);
        assertSameEncoding(f, own, "JMS_TEXT");
        assertSameEncoding(f, own, "JMS_MESSAGE");
        assertEquals("JMS-108", assertThrows(JMSException.class,
                () -> PayloadCodec.encode(f, "JMS_BYTES", 1, 0, true)).getErrorCode());
    }

    @Test
    void foreignBytesMapStreamObjectMessages() throws JMSException {
        ActiveMQBytesMessage fb = new ActiveMQBytesMessage();
        fb.writeInt(7);
        fb.writeUTF("\u4e2d");
        AQjmsBytesMessage ob = new AQjmsBytesMessage();
        ob.writeInt(7);
        ob.writeUTF("\u4e2d");
        assertSameEncoding(fb, ob, "JMS_BYTES");
        assertArrayEquals(ob.body(), PayloadCodec.encode(fb, "RAW", 1, 0, true).raw[0]);

        ActiveMQMapMessage fm = new ActiveMQMapMessage();
        AQjmsMapMessage om = new AQjmsMapMessage();
        for (javax.jms.MapMessage m : new javax.jms.MapMessage[] {fm, om}) {
            m.setLong("l", Long.MIN_VALUE);
            m.setFloat("f", 1.1f);
            m.setChar("c", '\u00e9');
            m.setBytes("b", new byte[] {1, 2});
            m.setString("s", "x");
        }
        assertSameEncoding(fm, om, "JMS_MAP");

        ActiveMQStreamMessage fs = new ActiveMQStreamMessage();
        AQjmsStreamMessage os = new AQjmsStreamMessage();
        for (javax.jms.StreamMessage m : new javax.jms.StreamMessage[] {fs, os}) {
            m.writeShort((short) 5);
            m.writeDouble(Double.NaN);
            m.writeString("\ud83d\ude00");
            m.writeBytes(new byte[] {3});
            m.writeBoolean(false);
        }
        assertSameEncoding(fs, os, "JMS_STREAM");

        ActiveMQObjectMessage fo = new ActiveMQObjectMessage();
        fo.setObject("hello");
        AQjmsObjectMessage oo = new AQjmsObjectMessage();
        oo.setObject("hello");
        assertSameEncoding(fo, oo, "JMS_OBJECT");

        ActiveMQMessage plain = new ActiveMQMessage();
        assertSameEncoding(plain, new AQjmsMessage(), "JMS_MAP");
    }

    @Test
    void encodingLeavesTheMessageAsItWas() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeInt(1);
        m.setIntProperty("p", 1);
        PayloadCodec.encode(m, "JMS_BYTES", 1, 0, true);
        m.writeInt(2);  // still writable
        m.setIntProperty("q", 2);
        assertEquals(8, ((Number) CodecGoldenTest.map(payload(PayloadCodec.encode(m, "JMS_BYTES", 1, 0, true)))
                .get("bytes_len")).intValue());
    }

    @Test
    void timeToLiveRule() throws JMSException {
        AQjmsTextMessage m = new AQjmsTextMessage();
        for (long[] c : new long[][] {{0, -1}, {-5, -1}, {1, 1}, {999, 1}, {1000, 1}, {1001, 2},
            {60000, 60}}) {
            Outgoing o = PayloadCodec.encode(m, "JMS_TEXT", 1, c[0], true);
            Map<String, Object> props = CodecGoldenTest.map(CodecGoldenTest.list(Json.parse(o.properties)).get(0));
            Map<String, Object> header = CodecGoldenTest.map(CodecGoldenTest.map(payload(o)).get("header"));
            Map<String, Object> userProps = CodecGoldenTest.map(header.get("properties"));
            if (c[1] < 0) {
                assertNull(props.get("expiration"));
            } else {
                assertEquals(c[1], ((Number) props.get("expiration")).longValue());
            }
            assertEquals(c[0] > 0 && c[0] % 1000 != 0, userProps.containsKey("JMS_OracleTimeToLive"),
                    Arrays.toString(c));
        }
    }

    @Test
    void refusesWhatTheDatabaseCannotStore() throws JMSException {
        AQjmsTextMessage m = new AQjmsTextMessage();
        m.setText("ok");
        m.setJMSType("a\u0000");
        assertEquals("JMS-161", assertThrows(MessageFormatException.class,
                () -> PayloadCodec.encode(m, "JMS_TEXT", 1, 0, true)).getErrorCode());
        m.setJMSType(null);
        m.setStringProperty("JMS_OracleExcpQ", "\udc00");
        assertEquals("JMS-161", assertThrows(MessageFormatException.class,
                () -> PayloadCodec.encode(m, "JMS_TEXT", 1, 0, true)).getErrorCode());
        assertTrue(ToEngine.storable("\ud83d\ude00"));
        assertTrue(!ToEngine.storable("\ude00\ud83d"));
    }

    @Test
    void replyToOfNoKnownKindIsRefused() throws JMSException {
        AQjmsTextMessage m = new AQjmsTextMessage();
        m.setJMSReplyTo(new javax.jms.Destination() { });
        assertEquals("JMS-147", assertThrows(JMSException.class,
                () -> PayloadCodec.encode(m, "JMS_TEXT", 1, 0, true)).getErrorCode());
    }

    @Test
    void adtPayloadAsTheEngineStoresObjects() throws JMSException {
        AQjmsAdtMessage m = new AQjmsAdtMessage();
        assertEquals("JMS-104", assertThrows(MessageFormatException.class,
                () -> PayloadCodec.encode(m, "OBJECT", 1, 0, true)).getErrorCode());
        Map<String, Object> address = new LinkedHashMap<>();
        address.put("CITY", "Z\u00fcrich");
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("ID", 7);
        a.put("RATE", Double.NaN);
        a.put("LIMIT", Float.NEGATIVE_INFINITY);
        a.put("CODE", new byte[] {(byte) 0xAB, 1});
        a.put("DAY", LocalDate.of(2024, 2, 29));
        a.put("ADDRESS", address);
        a.put("TAGS", Arrays.asList("x", null, 1.5));
        a.put("FLAG", 'Y');
        m.setAdtPayload(a);
        Object p = payload(PayloadCodec.encode(m, "OBJECT", 1, 0, true));
        CodecGoldenTest.assertSame(Json.parse("{\"ID\": 7, \"RATE\": \"NaN\", \"LIMIT\": \"-Infinity\","
                + " \"CODE\": \"\\\\xab01\", \"DAY\": \"2024-02-29\", \"ADDRESS\": {\"CITY\": \"Z\u00fcrich\"},"
                + " \"TAGS\": [\"x\", null, 1.5], \"FLAG\": \"Y\"}"), p, "ADT payload");
        a.put("BAD", new Object());
        m.setAdtPayload(a);
        assertEquals("JMS-195", assertThrows(MessageFormatException.class,
                () -> PayloadCodec.encode(m, "OBJECT", 1, 0, true)).getErrorCode());
        assertEquals("JMS-108", assertThrows(MessageFormatException.class,
                () -> PayloadCodec.encode(new AQjmsTextMessage(), "OBJECT", 1, 0, true)).getErrorCode());
    }

    private static Dequeued row(String payloadJson) {
        Dequeued d = new Dequeued();
        d.msgid = "00060A24182022400123456789ABCDEF";
        d.queueName = "SCOTT.Q";
        d.priority = 1;
        d.enqueueMicros = 1700000000123456L;
        d.state = "READY";
        d.payloadJson = payloadJson;
        return d;
    }

    @Test
    void readsWhatSqlProducersWrite() throws JMSException {
        String json = "{\"header\": {\"type\": 5, \"properties\": {\"a\": 5, \"b\": 1.5, \"c\": true,"
                + " \"d\": \"x\", \"e\": {\"type\": \"INT\", \"value\": \"12\"}, \"f\": {\"type\": \"int\","
                + " \"value\": \"abc\"}, \"g\": {\"type\": \"weird\", \"value\": 3}, \"h\": {\"type\":"
                + " \"float\", \"value\": \"-inf\"}, \"i\": {\"type\": \"byte\", \"value\": 300},"
                + " \"j\": {\"type\": \"long\", \"value\": null}}, \"groupseq\": \"4\"},"
                + " \"text_vc\": \"t\"}";
        AQjmsMessage m = PayloadCodec.decode(row(json), "JMS_TEXT", null, false, null);
        assertEquals("5", m.getJMSType());
        assertEquals(5L, m.getObjectProperty("a"));
        assertEquals(1.5d, m.getObjectProperty("b"));
        assertEquals(true, m.getObjectProperty("c"));
        assertEquals("x", m.getObjectProperty("d"));
        assertEquals(12, m.getObjectProperty("e"));
        assertEquals("abc", m.getObjectProperty("f"));
        assertEquals(3L, m.getObjectProperty("g"));
        assertEquals(Float.NEGATIVE_INFINITY, m.getObjectProperty("h"));
        assertEquals("300", m.getObjectProperty("i"));
        assertTrue(m.propertyExists("j"));
        assertNull(m.getObjectProperty("j"));
        assertEquals(4, m.getObjectProperty("JMSXGroupSeq"));
        // no seq: by name, after those with one
        assertEquals(Arrays.asList("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "JMSXGroupSeq"),
                PropertyTest.names(m).subList(0, 11));
    }

    @Test
    void genericMessageTypesAndBadPayloads() throws JMSException {
        assertInstanceOf(AQjmsTextMessage.class, PayloadCodec.decode(
                row("{\"message_type\": 9, \"text_vc\": \"x\"}"), "JMS_MESSAGE", null, false, null));
        AQjmsMessage s = PayloadCodec.decode(row("{\"message_type\": \"2\", \"bytes_raw\": \"\\\\x0500000007\"}"),
                "jms_message", null, false, null);
        assertEquals(7, ((AQjmsStreamMessage) s).readInt());
        assertEquals("JMS-161", assertThrows(MessageFormatException.class, () -> PayloadCodec.decode(
                row("{\"bytes_raw\": \"\\\\xZZ\"}"), "JMS_BYTES", null, false, null)).getErrorCode());
        assertEquals("JMS-161", assertThrows(MessageFormatException.class, () -> PayloadCodec.decode(
                row("{not json"), "JMS_TEXT", null, false, null)).getErrorCode());
        assertEquals("JMS-197", assertThrows(MessageFormatException.class, () -> PayloadCodec.decode(
                row("{}"), "JSON", null, false, null)).getErrorCode());
        AQjmsMessage empty = PayloadCodec.decode(row(null), "JMS_BYTES", null, false, null);
        assertEquals(0, ((AQjmsBytesMessage) empty).getBodyLength());
    }

    @Test
    void adtDecodesNumbersAsBigDecimal() throws JMSException {
        AQjmsMessage m = PayloadCodec.decode(row("{\"ID\": 7, \"BIG\": 123456789012345678901234567890,"
                + " \"P\": 1.25, \"L\": [1, {\"X\": 2}]}"), "OBJECT", null, false, null);
        Map<String, Object> a = ((AQjmsAdtMessage) m).getAdtPayload();
        assertEquals(new BigDecimal("7"), a.get("ID"));
        assertEquals(new BigDecimal("123456789012345678901234567890"), a.get("BIG"));
        assertEquals(new BigDecimal("1.25"), a.get("P"));
        List<Object> l = CodecGoldenTest.list(a.get("L"));
        assertEquals(new BigDecimal("1"), l.get(0));
        assertEquals(new BigDecimal("2"), CodecGoldenTest.map(l.get(1)).get("X"));
    }

    @Test
    void receivedSenderIsShownNotSentAgain() throws JMSException {
        Dequeued d = row("{\"text_vc\": \"x\"}");
        d.senderName = "OTHER";
        d.senderProtocol = 0;
        AQjmsMessage m = PayloadCodec.decode(d, "JMS_TEXT", null, false, null);
        assertEquals(new AQjmsAgent("OTHER", null, 0), m.getSenderID());
        m.clearBody();
        Map<String, Object> props = CodecGoldenTest.map(CodecGoldenTest.list(
                Json.parse(PayloadCodec.encode(m, "JMS_TEXT", 1, 0, true).properties)).get(0));
        assertTrue(!props.containsKey("sender_id"));
        m.setSenderID(new AQjmsAgent("ME", null, 0));
        props = CodecGoldenTest.map(CodecGoldenTest.list(
                Json.parse(PayloadCodec.encode(m, "JMS_TEXT", 1, 0, true).properties)).get(0));
        assertEquals("ME", props.get("sender_name"));
    }

    @Test
    void compliancePriorityAndExpiration() {
        assertEquals(9, FromEngine.priority(-5, true));
        assertEquals(0, FromEngine.priority(20, true));
        assertEquals(9, FromEngine.priority(Integer.MIN_VALUE, true));
        assertEquals(0, FromEngine.priority(Integer.MAX_VALUE, true));
        assertEquals(4, FromEngine.priority(5, true));
        assertEquals(-5, FromEngine.priority(-5, false));
        assertEquals(0, FromEngine.expiration(1000, null, null, true));
        assertEquals(0, FromEngine.expiration(1000, -1, 1500L, true));
        assertEquals(2500, FromEngine.expiration(1000, 2, 1500L, true));
        assertEquals(3000, FromEngine.expiration(1000, 2, 1500L, false));
        // a PL/SQL change of the expiration wins over the recorded time to live
        assertEquals(11000, FromEngine.expiration(1000, 10, 1500L, true));
        assertEquals(3000, FromEngine.expiration(1000, 2, "1500", true));
    }

    @Test
    void jsonReadsAndWrites() {
        Object v = Json.parse(" {\"a\\\"b\": [1, -2.5e3, true, false, null, \"\\u00e9\\ud83d\\ude00\\n\\/\"],"
                + " \"big\": 18446744073709551616, \"neg\": -9223372036854775808} ");
        Map<String, Object> m = CodecGoldenTest.map(v);
        List<Object> l = CodecGoldenTest.list(m.get("a\"b"));
        assertEquals(1L, l.get(0));
        assertEquals(new BigDecimal("-2.5e3"), l.get(1));
        assertEquals("\u00e9\ud83d\ude00\n/", l.get(5));
        assertEquals(new java.math.BigInteger("18446744073709551616"), m.get("big"));
        assertEquals(Long.MIN_VALUE, m.get("neg"));
        assertEquals(v.toString(), Json.parse(Json.write(v)).toString());
        assertEquals("\"\\u0000\\u001f\\\"\\\\\"", Json.write("\u0000\u001f\"\\"));
        assertEquals("1.1", Json.write(1.1f));
        for (String bad : new String[] {"", "{", "[1,]", "{\"a\" 1}", "tru", "\"\\x\"", "1 2", "\"abc"}) {
            try {
                Json.parse(bad);
                fail("parsed " + bad);
            } catch (IllegalArgumentException expected) {
                // not JSON
            }
        }
    }

    @Test
    void textLengthCountsCharactersAsPostgresql() throws JMSException {
        AQjmsTextMessage m = new AQjmsTextMessage();
        m.setText("\ud83d\ude00\ud83d\ude00");
        assertEquals(2L, CodecGoldenTest.map(payload(PayloadCodec.encode(m, "JMS_TEXT", 1, 0, true)))
                .get("text_len"));
    }
}
