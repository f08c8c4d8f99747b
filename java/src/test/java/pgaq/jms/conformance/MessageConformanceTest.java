package pgaq.jms.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import javax.jms.BytesMessage;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import javax.jms.MessageProducer;
import javax.jms.ObjectMessage;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.StreamMessage;
import javax.jms.TextMessage;
import javax.jms.Topic;

/** Messages: the five body types, header fields a client sets, properties and their
 *  conversions, read-only and write-only states (JMS 1.1 chapter 3; Oracle Database Advanced
 *  Queuing User's Guide, "Structured Payload/Message Types in JMS"). pgaq's destinations here
 *  are of payload type SYS.AQ$_JMS_MESSAGE, which holds every body type ("Java EE
 *  Compliance": "Multiple JMS messages types on a single JMS queue or topic"). */
class MessageConformanceTest extends ConformanceTest {

    /** Text that a database must keep as it is: non-BMP characters (surrogate pairs), accents,
     *  quotes, control characters other than NUL. */
    static final String UNICODE = "emoji \uD83D\uDE00 clef \uD834\uDD1E \u6F22\u5B57 \u00DCn\u00EFc\u00F6d\u00E9"
            + " 'single' \"double\" back\\slash\ttab\nnewline";

    /** {@link #UNICODE} without its characters beyond the Basic Multilingual Plane. */
    static final String BMP_UNICODE = "\u6F22\u5B57 \u00DCn\u00EFc\u00F6d\u00E9 \u20AC"
            + " 'single' \"double\" back\\slash\ttab\nnewline";

    /** Sends {@code m} to a new queue and receives it. */
    private Message roundTrip(Provider p, Session s, Message m) throws JMSException {
        Queue q = queue(p, s, "msg");
        s.createProducer(q).send(m);
        MessageConsumer consumer = s.createConsumer(q);
        Message got = consumer.receive(WAIT);
        assertNotNull(got, "the message did not come back");
        consumer.close();
        return got;
    }

    @ForEachProvider
    void textBodies(Provider p) throws Exception {
        Session s = autoAck(started(p));
        StringBuilder large = new StringBuilder();
        while (large.length() < 200_000) {
            large.append("large text beyond 4000 bytes ").append(UNICODE).append(' ');
        }
        for (String body : new String[] {"plain", "", UNICODE, large.toString()}) {
            Message got = roundTrip(p, s, s.createTextMessage(body));
            assertTrue(got instanceof TextMessage);
            assertEquals(body, ((TextMessage) got).getText(), "text of length " + body.length());
        }
    }

    @ForEachProvider
    void textBodyNull(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Message got = roundTrip(p, s, s.createTextMessage());
        assertTrue(got instanceof TextMessage);
        assertNull(((TextMessage) got).getText());
    }

    @ForEachProvider
    void bytesBody(Provider p) throws Exception {
        Session s = autoAck(started(p));
        BytesMessage m = s.createBytesMessage();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(expected);
        m.writeBoolean(true);
        out.writeBoolean(true);
        m.writeByte((byte) -2);
        out.writeByte(-2);
        m.writeShort(Short.MIN_VALUE);
        out.writeShort(Short.MIN_VALUE);
        m.writeChar('\u20AC');
        out.writeChar('\u20AC');
        m.writeInt(Integer.MAX_VALUE);
        out.writeInt(Integer.MAX_VALUE);
        m.writeLong(Long.MIN_VALUE);
        out.writeLong(Long.MIN_VALUE);
        m.writeFloat(Float.NaN);
        out.writeFloat(Float.NaN);
        m.writeDouble(Double.NEGATIVE_INFINITY);
        out.writeDouble(Double.NEGATIVE_INFINITY);
        m.writeUTF(UNICODE);
        out.writeUTF(UNICODE);
        byte[] raw = {0, 1, 2, (byte) 0x7F, (byte) 0x80, (byte) 0xFF};
        m.writeBytes(raw);
        out.write(raw);
        m.writeBytes(raw, 2, 3);
        out.write(raw, 2, 3);
        m.writeObject(Integer.valueOf(42));
        out.writeInt(42);
        out.flush();

        Message got = roundTrip(p, s, m);
        assertTrue(got instanceof BytesMessage);
        BytesMessage b = (BytesMessage) got;
        byte[] body = expected.toByteArray();
        assertEquals(body.length, b.getBodyLength());
        byte[] read = new byte[body.length];
        assertEquals(body.length, b.readBytes(read));
        assertArrayEquals(body, read);
        assertEquals(-1, b.readBytes(new byte[1]), "readBytes at the end of the body");
        b.reset();
        assertTrue(b.readBoolean());
        assertEquals((byte) -2, b.readByte());
        assertEquals(Short.MIN_VALUE, b.readShort());
        assertEquals('\u20AC', b.readChar());
        assertEquals(Integer.MAX_VALUE, b.readInt());
        assertEquals(Long.MIN_VALUE, b.readLong());
        assertTrue(Float.isNaN(b.readFloat()));
        assertEquals(Double.NEGATIVE_INFINITY, b.readDouble());
        assertEquals(UNICODE, b.readUTF());
        byte[] rawBack = new byte[raw.length];
        assertEquals(raw.length, b.readBytes(rawBack));
        assertArrayEquals(raw, rawBack);
        byte[] part = new byte[3];
        assertEquals(3, b.readBytes(part));
        assertArrayEquals(new byte[] {2, (byte) 0x7F, (byte) 0x80}, part);
        assertEquals(42, b.readInt());
        assertThrows(MessageEOFException.class, b::readByte);
    }

    @ForEachProvider
    void emptyBytesBody(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Message got = roundTrip(p, s, s.createBytesMessage());
        assertTrue(got instanceof BytesMessage);
        assertEquals(0L, ((BytesMessage) got).getBodyLength());
        assertEquals(-1, ((BytesMessage) got).readBytes(new byte[4]));
    }

    /** Map items of every type, their names, itemExists and JMS 1.1 3.11.3's conversions.
     *  ActiveMQ 5.17 returns each half of a surrogate pair in a map's String item as U+FFFD
     *  (its text bodies, properties and stream items are right), so the check that a map keeps
     *  non-BMP characters applies to the other providers only: JMS users expect the text back,
     *  and PostgreSQL's jsonb keeps it. */
    @ForEachProvider
    void mapBody(Provider p) throws Exception {
        Session s = autoAck(started(p));
        MapMessage m = s.createMapMessage();
        m.setBoolean("boolean", true);
        m.setByte("byte", Byte.MIN_VALUE);
        m.setShort("short", Short.MAX_VALUE);
        m.setChar("char", '\u00E9');
        m.setInt("int", Integer.MIN_VALUE);
        m.setLong("long", Long.MAX_VALUE);
        m.setFloat("float", 1.25f);
        m.setDouble("double", Double.NaN);
        m.setString("string", BMP_UNICODE);
        m.setString("nonBmp", UNICODE);
        m.setString("empty", "");
        m.setBytes("bytes", new byte[] {9, 8, (byte) 0xFF});
        m.setBytes("slice", new byte[] {1, 2, 3, 4}, 1, 2);
        m.setObject("object", Long.valueOf(-7));
        Message got = roundTrip(p, s, m);
        assertTrue(got instanceof MapMessage);
        MapMessage r = (MapMessage) got;
        assertEquals(new HashSet<>(Arrays.asList("boolean", "byte", "short", "char", "int", "long",
                "float", "double", "string", "nonBmp", "empty", "bytes", "slice", "object")),
                new HashSet<>(strings(r.getMapNames())));
        assertTrue(r.getBoolean("boolean"));
        assertEquals(Byte.MIN_VALUE, r.getByte("byte"));
        assertEquals(Short.MAX_VALUE, r.getShort("short"));
        assertEquals('\u00E9', r.getChar("char"));
        assertEquals(Integer.MIN_VALUE, r.getInt("int"));
        assertEquals(Long.MAX_VALUE, r.getLong("long"));
        assertEquals(1.25f, r.getFloat("float"));
        assertTrue(Double.isNaN(r.getDouble("double")));
        assertEquals(BMP_UNICODE, r.getString("string"));
        if (p.isPgaq()) {
            assertEquals(UNICODE, r.getString("nonBmp"));
        }
        assertEquals("", r.getString("empty"));
        assertArrayEquals(new byte[] {9, 8, (byte) 0xFF}, r.getBytes("bytes"));
        assertArrayEquals(new byte[] {2, 3}, r.getBytes("slice"));
        assertEquals(Long.valueOf(-7), r.getObject("object"));
        // each item keeps its type (getObject) ...
        assertEquals(Byte.class, r.getObject("byte").getClass());
        assertEquals(Short.class, r.getObject("short").getClass());
        assertEquals(Character.class, r.getObject("char").getClass());
        assertEquals(Integer.class, r.getObject("int").getClass());
        assertEquals(Float.class, r.getObject("float").getClass());
        assertEquals(Boolean.class, r.getObject("boolean").getClass());
        // ... and converts as JMS 1.1 3.11.3's table allows
        assertEquals((long) Integer.MIN_VALUE, r.getLong("int"));
        assertEquals(String.valueOf(Integer.MIN_VALUE), r.getString("int"));
        assertEquals(1.25d, r.getDouble("float"));
        assertEquals("true", r.getString("boolean"));
        assertThrows(MessageFormatException.class, () -> r.getInt("long"));
        assertThrows(MessageFormatException.class, () -> r.getBoolean("int"));
        assertTrue(r.itemExists("int"));
        assertFalse(r.itemExists("nothing"));
        assertNull(r.getString("nothing"));
        assertNull(r.getObject("nothing"));
        assertNull(r.getBytes("nothing"));
    }

    @ForEachProvider
    void streamBody(Provider p) throws Exception {
        Session s = autoAck(started(p));
        StreamMessage m = s.createStreamMessage();
        m.writeBoolean(false);
        m.writeByte((byte) 7);
        m.writeShort((short) -300);
        m.writeChar('x');
        m.writeInt(123456);
        m.writeLong(-9_000_000_000L);
        m.writeFloat(Float.POSITIVE_INFINITY);
        m.writeDouble(Math.PI);
        m.writeString(UNICODE);
        m.writeBytes(new byte[] {5, 6, 7});
        m.writeObject("as object");
        m.writeString("42");
        Message got = roundTrip(p, s, m);
        assertTrue(got instanceof StreamMessage);
        StreamMessage r = (StreamMessage) got;
        assertFalse(r.readBoolean());
        assertEquals((byte) 7, r.readByte());
        assertEquals((short) -300, r.readShort());
        assertEquals('x', r.readChar());
        assertEquals(123456, r.readInt());
        assertEquals(-9_000_000_000L, r.readLong());
        assertEquals(Float.POSITIVE_INFINITY, r.readFloat());
        assertEquals(Math.PI, r.readDouble());
        assertEquals(UNICODE, r.readString());
        byte[] buf = new byte[3];
        assertEquals(3, r.readBytes(buf));
        assertArrayEquals(new byte[] {5, 6, 7}, buf);
        assertEquals(-1, r.readBytes(buf), "the end of a byte array field");
        assertEquals("as object", r.readObject());
        assertEquals(42, r.readInt(), "a String read as int (JMS 1.1 3.11.3)");
        assertThrows(MessageEOFException.class, r::readObject);
        r.reset();
        assertEquals(Boolean.FALSE, r.readObject());
        assertEquals(Byte.valueOf((byte) 7), r.readObject());
    }

    @ForEachProvider
    void objectBody(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Payload payload = new Payload("order " + UNICODE, new int[] {1, 2, 3},
                Arrays.asList("a", "b"));
        ObjectMessage m = s.createObjectMessage(payload);
        Message got = roundTrip(p, s, m);
        assertTrue(got instanceof ObjectMessage);
        Serializable back = ((ObjectMessage) got).getObject();
        assertEquals(payload, back);
        assertNotSame(payload, back);

        ArrayList<String> list = new ArrayList<>(Arrays.asList("x", UNICODE));
        Message gotList = roundTrip(p, s, s.createObjectMessage(list));
        assertEquals(list, ((ObjectMessage) gotList).getObject());

        Message gotNull = roundTrip(p, s, s.createObjectMessage());
        assertNull(((ObjectMessage) gotNull).getObject());
    }

    /** A Message with no body carries its header fields and properties. */
    @ForEachProvider
    void messageWithoutBody(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Message m = s.createMessage();
        m.setStringProperty("kind", "header only");
        m.setJMSCorrelationID("no-body");
        m.setJMSType("ping");
        Message got = roundTrip(p, s, m);
        assertEquals("header only", got.getStringProperty("kind"));
        assertEquals("no-body", got.getJMSCorrelationID());
        assertEquals("ping", got.getJMSType());
    }

    /** Every body type through one destination, each received as the type it was sent as. */
    @ForEachProvider
    void everyBodyTypeThroughOneDestination(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "mmixed");
        MessageProducer producer = s.createProducer(q);
        producer.send(s.createTextMessage("text"));
        BytesMessage bytes = s.createBytesMessage();
        bytes.writeInt(1);
        producer.send(bytes);
        MapMessage map = s.createMapMessage();
        map.setInt("n", 2);
        producer.send(map);
        StreamMessage stream = s.createStreamMessage();
        stream.writeInt(3);
        producer.send(stream);
        producer.send(s.createObjectMessage(Integer.valueOf(4)));
        MessageConsumer consumer = s.createConsumer(q);
        assertEquals("text", text(consumer.receive(WAIT)));
        Message b = consumer.receive(WAIT);
        assertTrue(b instanceof BytesMessage, "got " + b);
        assertEquals(1, ((BytesMessage) b).readInt());
        Message mm = consumer.receive(WAIT);
        assertTrue(mm instanceof MapMessage, "got " + mm);
        assertEquals(2, ((MapMessage) mm).getInt("n"));
        Message sm = consumer.receive(WAIT);
        assertTrue(sm instanceof StreamMessage, "got " + sm);
        assertEquals(3, ((StreamMessage) sm).readInt());
        Message om = consumer.receive(WAIT);
        assertTrue(om instanceof ObjectMessage, "got " + om);
        assertEquals(Integer.valueOf(4), ((ObjectMessage) om).getObject());
    }

    /** JMS 1.1 3.5.4: property values are boolean, byte, short, int, long, float, double and
     *  String, and keep their type (the guide, "JMS Message Properties": "values can be:
     *  Boolean, byte, short, int, long, float, double, and string"). */
    @ForEachProvider
    void propertyTypesRoundTrip(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Message m = s.createTextMessage("properties");
        m.setBooleanProperty("boolean", true);
        m.setByteProperty("byte", (byte) -128);
        m.setShortProperty("short", (short) 32767);
        m.setIntProperty("int", -2147483648);
        m.setLongProperty("long", 9_223_372_036_854_775_807L);
        m.setFloatProperty("float", 3.5f);
        m.setDoubleProperty("double", -1.0e300);
        m.setStringProperty("string", UNICODE);
        m.setStringProperty("emptyString", "");
        m.setObjectProperty("objectInt", Integer.valueOf(17));
        Message got = roundTrip(p, s, m);
        assertTrue(got.getBooleanProperty("boolean"));
        assertEquals((byte) -128, got.getByteProperty("byte"));
        assertEquals((short) 32767, got.getShortProperty("short"));
        assertEquals(-2147483648, got.getIntProperty("int"));
        assertEquals(9_223_372_036_854_775_807L, got.getLongProperty("long"));
        assertEquals(3.5f, got.getFloatProperty("float"));
        assertEquals(-1.0e300, got.getDoubleProperty("double"));
        assertEquals(UNICODE, got.getStringProperty("string"));
        assertEquals("", got.getStringProperty("emptyString"));
        assertEquals(17, got.getIntProperty("objectInt"));
        assertEquals(Boolean.TRUE, got.getObjectProperty("boolean"));
        assertEquals(Byte.valueOf((byte) -128), got.getObjectProperty("byte"));
        assertEquals(Short.valueOf((short) 32767), got.getObjectProperty("short"));
        assertEquals(Integer.valueOf(-2147483648), got.getObjectProperty("int"));
        assertEquals(Long.valueOf(9_223_372_036_854_775_807L), got.getObjectProperty("long"));
        assertEquals(Float.valueOf(3.5f), got.getObjectProperty("float"));
        assertEquals(Double.valueOf(-1.0e300), got.getObjectProperty("double"));
        assertEquals(Integer.valueOf(17), got.getObjectProperty("objectInt"));
        List<String> names = strings(got.getPropertyNames());
        for (String n : Arrays.asList("boolean", "byte", "short", "int", "long", "float",
                "double", "string", "emptyString", "objectInt")) {
            assertTrue(names.contains(n), n + " in " + names);
            assertTrue(got.propertyExists(n), n);
        }
    }

    /** Floating point properties keep NaN, the infinities, -0.0 and their extremes. */
    @ForEachProvider
    void floatingPointPropertiesKeepSpecialValues(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Message m = s.createMessage();
        m.setFloatProperty("fNaN", Float.NaN);
        m.setFloatProperty("fPosInf", Float.POSITIVE_INFINITY);
        m.setFloatProperty("fNegInf", Float.NEGATIVE_INFINITY);
        m.setFloatProperty("fMax", Float.MAX_VALUE);
        m.setFloatProperty("fMin", Float.MIN_VALUE);
        m.setDoubleProperty("dNaN", Double.NaN);
        m.setDoubleProperty("dPosInf", Double.POSITIVE_INFINITY);
        m.setDoubleProperty("dNegInf", Double.NEGATIVE_INFINITY);
        m.setDoubleProperty("dNegZero", -0.0d);
        m.setDoubleProperty("dMax", Double.MAX_VALUE);
        m.setDoubleProperty("dMin", Double.MIN_VALUE);
        m.setDoubleProperty("dTenth", 0.1d);
        Message got = roundTrip(p, s, m);
        assertTrue(Float.isNaN(got.getFloatProperty("fNaN")));
        assertEquals(Float.POSITIVE_INFINITY, got.getFloatProperty("fPosInf"));
        assertEquals(Float.NEGATIVE_INFINITY, got.getFloatProperty("fNegInf"));
        assertEquals(Float.MAX_VALUE, got.getFloatProperty("fMax"));
        assertEquals(Float.MIN_VALUE, got.getFloatProperty("fMin"));
        assertTrue(Double.isNaN(got.getDoubleProperty("dNaN")));
        assertEquals(Double.POSITIVE_INFINITY, got.getDoubleProperty("dPosInf"));
        assertEquals(Double.NEGATIVE_INFINITY, got.getDoubleProperty("dNegInf"));
        assertEquals(Double.valueOf(-0.0d), Double.valueOf(got.getDoubleProperty("dNegZero")),
                "negative zero");
        assertEquals(Double.MAX_VALUE, got.getDoubleProperty("dMax"));
        assertEquals(Double.MIN_VALUE, got.getDoubleProperty("dMin"));
        assertEquals(0.1d, got.getDoubleProperty("dTenth"));
        assertEquals(Float.valueOf(Float.NaN), got.getObjectProperty("fNaN"));
        assertEquals(Double.valueOf(Double.NaN), got.getObjectProperty("dNaN"));
    }

    /** JMS 1.1 3.5.4 / 3.5.5: a property that was not set reads as null ("Only
     *  getStringProperty and getObjectProperty can return null"); read as a primitive it is
     *  "treated as calling the primitive's corresponding valueOf(String) conversion method
     *  with a null value": Boolean.valueOf(null) is false, Integer.valueOf(null) throws
     *  NumberFormatException, Double.valueOf(null) NullPointerException. */
    @ForEachProvider
    void missingPropertiesReadAsNull(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Message m = s.createTextMessage("nothing set");
        m.setStringProperty("present", "yes");
        Message got = roundTrip(p, s, m);
        assertFalse(got.propertyExists("absent"));
        assertNull(got.getStringProperty("absent"));
        assertNull(got.getObjectProperty("absent"));
        assertFalse(got.getBooleanProperty("absent"));
        assertThrows(NumberFormatException.class, () -> got.getByteProperty("absent"));
        assertThrows(NumberFormatException.class, () -> got.getShortProperty("absent"));
        assertThrows(NumberFormatException.class, () -> got.getIntProperty("absent"));
        assertThrows(NumberFormatException.class, () -> got.getLongProperty("absent"));
        assertThrows(NullPointerException.class, () -> got.getFloatProperty("absent"));
        assertThrows(NullPointerException.class, () -> got.getDoubleProperty("absent"));
        assertTrue(got.propertyExists("present"));
        assertFalse(strings(got.getPropertyNames()).contains("absent"));
    }

    /** JMS 1.1 3.5.4's conversion table, on a received message: a value reads as the wider
     *  types and as a String; a String reads as any type it parses to; anything else is a
     *  MessageFormatException, and a String that does not parse a NumberFormatException. */
    @ForEachProvider
    void propertyConversionsAfterReceive(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Message m = s.createMessage();
        m.setBooleanProperty("b", true);
        m.setByteProperty("y", (byte) 12);
        m.setShortProperty("h", (short) 1234);
        m.setIntProperty("i", 42);
        m.setLongProperty("l", 1L << 40);
        m.setFloatProperty("f", 2.5f);
        m.setDoubleProperty("d", 0.25d);
        m.setStringProperty("sNum", "7");
        m.setStringProperty("sBool", "TRUE");
        m.setStringProperty("sFloat", "1.5");
        m.setStringProperty("sText", "abc");
        Message r = roundTrip(p, s, m);
        assertEquals("true", r.getStringProperty("b"));
        assertEquals((short) 12, r.getShortProperty("y"));
        assertEquals(12, r.getIntProperty("y"));
        assertEquals(12L, r.getLongProperty("y"));
        assertEquals("12", r.getStringProperty("y"));
        assertEquals(1234, r.getIntProperty("h"));
        assertEquals(1234L, r.getLongProperty("h"));
        assertEquals(42L, r.getLongProperty("i"));
        assertEquals("42", r.getStringProperty("i"));
        assertEquals(String.valueOf(1L << 40), r.getStringProperty("l"));
        assertEquals(2.5d, r.getDoubleProperty("f"));
        assertEquals("2.5", r.getStringProperty("f"));
        assertEquals("0.25", r.getStringProperty("d"));
        assertEquals((byte) 7, r.getByteProperty("sNum"));
        assertEquals((short) 7, r.getShortProperty("sNum"));
        assertEquals(7, r.getIntProperty("sNum"));
        assertEquals(7L, r.getLongProperty("sNum"));
        assertEquals(7.0d, r.getDoubleProperty("sNum"));
        assertTrue(r.getBooleanProperty("sBool"));
        assertEquals(1.5f, r.getFloatProperty("sFloat"));
        assertEquals(1.5d, r.getDoubleProperty("sFloat"));
        assertFalse(r.getBooleanProperty("sText"), "Boolean.valueOf(\"abc\") is false");
        assertThrows(NumberFormatException.class, () -> r.getIntProperty("sText"));
        assertThrows(MessageFormatException.class, () -> r.getIntProperty("b"));
        assertThrows(MessageFormatException.class, () -> r.getBooleanProperty("i"));
        assertThrows(MessageFormatException.class, () -> r.getIntProperty("l"));
        assertThrows(MessageFormatException.class, () -> r.getByteProperty("h"));
        assertThrows(MessageFormatException.class, () -> r.getFloatProperty("d"));
        assertThrows(MessageFormatException.class, () -> r.getLongProperty("f"));
        assertThrows(MessageFormatException.class, () -> r.getIntProperty("f"));
    }

    /** JMS 1.1 Message.setObjectProperty: "MessageFormatException - if the object is
     *  invalid" (only the objectified primitives and String). */
    @ForEachProvider
    void objectPropertiesOfOtherTypesAreRefused(Provider p) throws Exception {
        Session s = autoAck(connect(p));
        Message m = s.createMessage();
        // (not a List, Map or Character: ActiveMQ takes those as its own extensions)
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("bytes", new byte[] {1}));
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("object", new Object()));
        assertThrows(MessageFormatException.class,
                () -> m.setObjectProperty("builder", new StringBuilder("not a String")));
    }

    /** JMS 1.1 3.10: a received message's properties and body are read-only
     *  (MessageNotWriteableException) until clearProperties / clearBody. */
    @ForEachProvider
    void receivedMessagesAreReadOnly(Provider p) throws Exception {
        Session s = autoAck(started(p));
        TextMessage m = s.createTextMessage("read only");
        m.setStringProperty("p", "v");
        TextMessage got = (TextMessage) roundTrip(p, s, m);
        assertThrows(MessageNotWriteableException.class, () -> got.setStringProperty("p", "w"));
        assertThrows(MessageNotWriteableException.class, () -> got.setIntProperty("other", 1));
        assertThrows(MessageNotWriteableException.class, () -> got.setText("changed"));
        got.clearProperties();
        assertFalse(got.propertyExists("p"));
        got.setStringProperty("p", "writable again");
        assertEquals("writable again", got.getStringProperty("p"));
        got.clearBody();
        assertNull(got.getText());
        got.setText("changed after clearBody");
        assertEquals("changed after clearBody", got.getText());
    }

    /** JMS 1.1 3.11.2 / 3.11.4: a new BytesMessage or StreamMessage is write-only until
     *  reset() (MessageNotReadableException); a received one is read-only. */
    @ForEachProvider
    void bytesAndStreamBodiesAreWriteOnlyUntilReset(Provider p) throws Exception {
        Session s = autoAck(started(p));
        BytesMessage b = s.createBytesMessage();
        b.writeInt(5);
        assertThrows(MessageNotReadableException.class, b::readInt);
        b.reset();
        assertEquals(5, b.readInt());
        StreamMessage st = s.createStreamMessage();
        st.writeString("s");
        assertThrows(MessageNotReadableException.class, st::readString);
        st.reset();
        assertEquals("s", st.readString());
        BytesMessage received = (BytesMessage) roundTrip(p, s, b);
        assertThrows(MessageNotWriteableException.class, () -> received.writeInt(1));
        assertEquals(5, received.readInt());
    }

    /** JMSReplyTo "contains a Destination type supplied by a client ... javax.jms.Queue; or
     *  javax.jms.Topic" (the guide, "JMS Message Headers"): a Queue comes back as a Queue and a
     *  Topic as a Topic. */
    @ForEachProvider
    void replyToKeepsQueueOrTopic(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue replyQueue = queue(p, s, "mreplyq");
        Topic replyTopic = topic(p, s, "mreplyt");
        TextMessage toQueue = s.createTextMessage("reply to a queue");
        toQueue.setJMSReplyTo(replyQueue);
        Message got = roundTrip(p, s, toQueue);
        assertTrue(got.getJMSReplyTo() instanceof Queue, "JMSReplyTo " + got.getJMSReplyTo());
        assertFalse(got.getJMSReplyTo() instanceof Topic, "JMSReplyTo " + got.getJMSReplyTo());
        assertTrue(ProducerConformanceTest.sameDestination(replyQueue, got.getJMSReplyTo()));
        TextMessage toTopic = s.createTextMessage("reply to a topic");
        toTopic.setJMSReplyTo(replyTopic);
        Message got2 = roundTrip(p, s, toTopic);
        assertTrue(got2.getJMSReplyTo() instanceof Topic, "JMSReplyTo " + got2.getJMSReplyTo());
        assertFalse(got2.getJMSReplyTo() instanceof Queue, "JMSReplyTo " + got2.getJMSReplyTo());
        assertTrue(ProducerConformanceTest.sameDestination(replyTopic, got2.getJMSReplyTo()));
        // and a reply sent there arrives
        MessageConsumer sub = s.createConsumer((Topic) got2.getJMSReplyTo());
        s.createProducer(got2.getJMSReplyTo()).send(s.createTextMessage("the reply"));
        assertEquals("the reply", receiveText(sub));
        Message none = roundTrip(p, s, s.createTextMessage("no reply to"));
        assertNull(none.getJMSReplyTo());
    }

    @ForEachProvider
    void correlationIdAndTypeRoundTrip(Provider p) throws Exception {
        Session s = autoAck(started(p));
        TextMessage m = s.createTextMessage("correlated");
        m.setJMSCorrelationID("order-42 \u00C4\u00D6 \uD83D\uDE00");
        m.setJMSType("com.example.Order");
        Message got = roundTrip(p, s, m);
        assertEquals("order-42 \u00C4\u00D6 \uD83D\uDE00", got.getJMSCorrelationID());
        assertEquals("com.example.Order", got.getJMSType());
        Message plain = roundTrip(p, s, s.createTextMessage("uncorrelated"));
        assertNull(plain.getJMSCorrelationID());
        assertNull(plain.getJMSType());
    }

    /** JMS 1.1 3.5.9: JMSXGroupID and JMSXGroupSeq are set by the client and must be
     *  supported (the guide, "Using Message Properties with Different Message Types": the
     *  client can set JMSXGroupID and JMSXGroupSeq, and get them). */
    @ForEachProvider
    void groupPropertiesRoundTrip(Provider p) throws Exception {
        Session s = autoAck(started(p));
        TextMessage m = s.createTextMessage("grouped");
        m.setStringProperty("JMSXGroupID", "group-1");
        m.setIntProperty("JMSXGroupSeq", 3);
        Message got = roundTrip(p, s, m);
        assertEquals("group-1", got.getStringProperty("JMSXGroupID"));
        assertEquals(3, got.getIntProperty("JMSXGroupSeq"));
    }

    /** JMS 1.1 3.4.11: JMSDestination, JMSDeliveryMode, JMSExpiration, JMSPriority,
     *  JMSMessageID and JMSTimestamp are set by the send method, whatever the client put
     *  there before. */
    @ForEachProvider
    void sendOverwritesTheHeaderFieldsItSets(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "mover");
        Queue other = queue(p, s, "mother");
        TextMessage m = s.createTextMessage("overwritten");
        m.setJMSMessageID("ID:client-made");
        m.setJMSTimestamp(1L);
        m.setJMSDestination(other);
        m.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        m.setJMSPriority(ProducerConformanceTest.defaultPriority(p) == 2 ? 3 : 2);
        m.setJMSExpiration(12_345L);
        s.createProducer(q).send(m);
        Message got = s.createConsumer(q).receive(WAIT);
        assertEquals("overwritten", text(got));
        assertFalse("ID:client-made".equals(got.getJMSMessageID()));
        assertTrue(got.getJMSTimestamp() > 1L);
        assertTrue(ProducerConformanceTest.sameDestination(q, got.getJMSDestination()));
        assertEquals(DeliveryMode.PERSISTENT, got.getJMSDeliveryMode());
        assertEquals(ProducerConformanceTest.defaultPriority(p), got.getJMSPriority());
        assertEquals(0L, got.getJMSExpiration());
        assertNothing(s.createConsumer(other));
    }

    /** JMS 1.1 3.12: a provider sends a message of another implementation (a foreign
     *  message), and sets the send's header fields on it. */
    @ForEachProvider
    void foreignMessageIsSent(Provider p) throws Exception {
        Session s = autoAck(started(p));
        Queue q = queue(p, s, "mforeign");
        ForeignTextMessage foreign = new ForeignTextMessage("from elsewhere " + UNICODE);
        foreign.setJMSCorrelationID("foreign-1");
        foreign.setJMSType("foreign");
        foreign.setStringProperty("origin", "another provider");
        foreign.setIntProperty("count", 3);
        s.createProducer(q).send(foreign);
        assertNotNull(foreign.getJMSMessageID());
        assertTrue(foreign.getJMSMessageID().startsWith("ID:"), foreign.getJMSMessageID());
        Message got = s.createConsumer(q).receive(WAIT);
        assertEquals("from elsewhere " + UNICODE, text(got));
        assertEquals("foreign-1", got.getJMSCorrelationID());
        assertEquals("foreign", got.getJMSType());
        assertEquals("another provider", got.getStringProperty("origin"));
        assertEquals(3, got.getIntProperty("count"));
        assertEquals(foreign.getJMSMessageID(), got.getJMSMessageID());
    }
}
