package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

/** Text, Map, Object and Adt bodies, headers and acknowledge, as JMS 1.1 defines them. */
class MessageBodyTest {
    @Test
    void textBodyReadOnlyWhenReceivedUntilClearBody() throws JMSException {
        AQjmsTextMessage m = new AQjmsTextMessage();
        m.setText("a");
        m.setReadOnly();
        assertThrows(MessageNotWriteableException.class, () -> m.setText("b"));
        assertEquals("a", m.getText());
        m.clearBody();
        assertNull(m.getText());
        m.setText("b");
        assertEquals("b", m.getText());
    }

    @Test
    void mapItems() throws JMSException {
        AQjmsMapMessage m = new AQjmsMapMessage();
        m.setInt("i", 1);
        m.setBytes("b", new byte[] {1, 2, 3}, 1, 2);
        m.setString("s", null);
        m.setObject("c", 'x');
        m.setInt("i", 2);  // replaces, keeps its place
        List<Object> names = new ArrayList<>(Collections.list(m.getMapNames()));
        assertEquals(java.util.Arrays.asList("i", "b", "s", "c"), names);
        assertEquals(2, m.getInt("i"));
        assertArrayEquals(new byte[] {2, 3}, m.getBytes("b"));
        m.getBytes("b")[0] = 9;  // a copy
        assertArrayEquals(new byte[] {2, 3}, (byte[]) m.getObject("b"));
        assertNull(m.getString("s"));
        assertTrue(m.itemExists("s"));
        assertFalse(m.itemExists("none"));
        assertNull(m.getObject("none"));
        assertNull(m.getBytes("none"));
        assertFalse(m.getBoolean("none"));
        assertThrows(NumberFormatException.class, () -> m.getLong("none"));
        assertThrows(NumberFormatException.class, () -> m.getInt("s"));
        assertEquals('x', m.getChar("c"));
        m.setString("beyond", "\ud83d\ude00");  // two UTF-16 units: no char
        assertThrows(MessageFormatException.class, () -> m.getChar("beyond"));
        m.setString("beyond", "\u4e2d");
        assertEquals('\u4e2d', m.getChar("beyond"));
        assertThrows(IllegalArgumentException.class, () -> m.setInt("", 1));
        assertThrows(IllegalArgumentException.class, () -> m.setInt(null, 1));
        assertThrows(MessageFormatException.class, () -> m.setObject("o", null));
        assertThrows(MessageFormatException.class, () -> m.setObject("o", new Object()));
        m.setReadOnly();
        assertThrows(MessageNotWriteableException.class, () -> m.setInt("j", 1));
        assertEquals(2, m.getInt("i"));
        m.clearBody();
        assertFalse(m.getMapNames().hasMoreElements());
        m.setInt("j", 1);
    }

    static final class Box implements Serializable {
        private static final long serialVersionUID = 1L;
        List<String> items = new ArrayList<>();
    }

    static final class NotSerializable implements Serializable {
        private static final long serialVersionUID = 1L;
        @SuppressWarnings("unused")
        private final Object inside = new Object();
    }

    @Test
    void objectBodyIsACopyMadeWhenSet() throws JMSException {
        AQjmsObjectMessage m = new AQjmsObjectMessage();
        Box box = new Box();
        box.items.add("a");
        m.setObject(box);
        box.items.add("b");  // after the set: not in the message
        Box got = (Box) m.getObject();
        assertEquals(Collections.singletonList("a"), got.items);
        assertNotSame(got, m.getObject());
        assertThrows(MessageFormatException.class, () -> m.setObject(new NotSerializable()));
        m.setObject(null);
        assertNull(m.getObject());
        m.serialized(new byte[] {1, 2, 3});
        assertEquals("JMS-161", assertThrows(MessageFormatException.class, m::getObject).getErrorCode());
        m.setReadOnly();
        assertThrows(MessageNotWriteableException.class, () -> m.setObject("x"));
        m.clearBody();
        assertNull(m.getObject());
    }

    @Test
    void adtPayloadIsCopied() throws JMSException {
        AQjmsAdtMessage m = new AQjmsAdtMessage();
        Map<String, Object> attributes = new LinkedHashMap<>();
        attributes.put("ID", 1);
        m.setAdtPayload(attributes);
        attributes.put("ID", 2);
        assertEquals(1, m.getAdtPayload().get("ID"));
        assertThrows(UnsupportedOperationException.class, () -> m.getAdtPayload().put("X", 1));
        m.setReadOnly();
        assertThrows(MessageNotWriteableException.class, () -> m.setAdtPayload(attributes));
        m.clearBody();
        assertNull(m.getAdtPayload());
    }

    @Test
    void headers() throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        assertEquals(DeliveryMode.PERSISTENT, m.getJMSDeliveryMode());
        assertEquals(4, m.getJMSPriority());
        m.setJMSDeliveryMode(DeliveryMode.NON_PERSISTENT);
        assertEquals(DeliveryMode.NON_PERSISTENT, m.getJMSDeliveryMode());
        assertEquals("JMS-101", assertThrows(JMSException.class, () -> m.setJMSDeliveryMode(3)).getErrorCode());
        m.setJMSCorrelationIDAsBytes("c\u00e9".getBytes(StandardCharsets.UTF_8));
        assertEquals("c\u00e9", m.getJMSCorrelationID());
        assertArrayEquals("c\u00e9".getBytes(StandardCharsets.UTF_8), m.getJMSCorrelationIDAsBytes());
        AQjmsAgent agent = new AQjmsAgent("A", "S.Q", 0);
        m.setJMSReplyTo(agent);
        assertEquals(agent, m.getJMSReplyTo());
        m.setReadOnly();
        m.setJMSType("headers stay writable");
        assertEquals("headers stay writable", m.getJMSType());
    }

    @Test
    void acknowledgeCallsTheSessionsAcknowledger() throws JMSException {
        AQjmsMessage m = new AQjmsTextMessage();
        m.acknowledge();  // not received: nothing to acknowledge
        int[] calls = {0};
        m.setAcknowledger(() -> calls[0]++);
        m.acknowledge();
        assertEquals(1, calls[0]);
    }
}
