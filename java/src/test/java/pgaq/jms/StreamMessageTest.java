package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import javax.jms.JMSException;
import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

/** StreamMessage as JMS 1.1 defines it: fields read in order, byte[] fields read in parts,
 *  failed reads that leave the position, nulls, EOF. */
class StreamMessageTest {
    @Test
    void byteArrayFieldReadInParts() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        m.writeBytes(new byte[] {1, 2, 3, 4, 5});
        m.writeInt(9);
        m.reset();
        byte[] buf = new byte[2];
        assertEquals(2, m.readBytes(buf));
        assertArrayEquals(new byte[] {1, 2}, buf);
        // the field must be read to its end before the next one
        assertThrows(MessageFormatException.class, m::readInt);
        assertThrows(MessageFormatException.class, m::readObject);
        assertEquals(2, m.readBytes(buf));
        assertArrayEquals(new byte[] {3, 4}, buf);
        assertEquals(1, m.readBytes(buf));  // less than the buffer: the field's end
        assertEquals(5, buf[0]);
        assertEquals(9, m.readInt());
        assertThrows(MessageEOFException.class, m::readInt);
    }

    @Test
    void byteArrayFieldEndingAtTheBuffersEndGivesMinusOneNext() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        m.writeBytes(new byte[] {1, 2, 3, 4});
        m.writeString("next");
        m.reset();
        byte[] buf = new byte[2];
        assertEquals(2, m.readBytes(buf));
        assertEquals(2, m.readBytes(buf));
        assertEquals(-1, m.readBytes(buf));
        assertEquals("next", m.readString());
    }

    @Test
    void nullAndEmptyByteArrayFields() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        m.writeBytes(null);
        m.writeBytes(new byte[0]);
        m.writeBytes(new byte[] {1, 2, 3}, 1, 1);
        m.reset();
        byte[] buf = new byte[4];
        assertEquals(-1, m.readBytes(buf));
        assertEquals(0, m.readBytes(buf));
        assertEquals(1, m.readBytes(buf));
        assertEquals(2, buf[0]);
    }

    @Test
    void readBytesOfAnotherTypeIsAFormatError() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        m.writeString("s");
        m.reset();
        assertThrows(MessageFormatException.class, () -> m.readBytes(new byte[1]));
        assertEquals("s", m.readString());
    }

    @Test
    void failedReadLeavesThePosition() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        m.writeString("abc");
        m.writeLong(5);
        m.reset();
        assertThrows(NumberFormatException.class, m::readInt);
        assertThrows(MessageFormatException.class, m::readChar);
        assertEquals("abc", m.readString());
        assertThrows(MessageFormatException.class, m::readInt);  // long to int: not allowed
        assertEquals(5L, m.readLong());
    }

    @Test
    void nullFields() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        for (int i = 0; i < 5; i++) {
            m.writeString(null);
        }
        m.writeObject(null);
        m.reset();
        assertNull(m.readString());
        assertFalse(m.readBoolean());  // Boolean.valueOf(null)
        assertThrows(NumberFormatException.class, m::readInt);  // Integer.valueOf(null)
        assertThrows(NullPointerException.class, m::readDouble);  // Double.valueOf(null)
        assertThrows(MessageFormatException.class, m::readChar);
        for (int i = 2; i < 6; i++) {
            assertNull(m.readObject());
        }
        assertThrows(MessageEOFException.class, m::readObject);
    }

    @Test
    void readObjectGivesTheTypeWritten() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        Object[] values = {true, (byte) 1, (short) 2, 'c', 3, 4L, 5f, 6d, "s"};
        for (Object v : values) {
            m.writeObject(v);
        }
        byte[] data = {1, 2};
        m.writeObject(data);
        data[0] = 9;  // written as a copy
        assertThrows(MessageFormatException.class, () -> m.writeObject(new java.util.Date()));
        m.reset();
        for (Object v : values) {
            Object got = m.readObject();
            assertEquals(v, got);
            assertEquals(v.getClass(), got.getClass());
        }
        assertArrayEquals(new byte[] {1, 2}, (byte[]) m.readObject());
    }

    @Test
    void modesAndClearBody() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        m.writeInt(1);
        assertThrows(MessageNotReadableException.class, m::readInt);
        m.reset();
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(2));
        assertEquals(1, m.readInt());
        m.setReadOnly();  // as received: reset to the start
        assertEquals(1, m.readInt());
        m.clearBody();
        m.writeInt(3);
        m.reset();
        assertEquals(3, m.readInt());
        assertThrows(MessageEOFException.class, m::readInt);
    }

    @Test
    void wireFormatRoundTripsEveryKindAndRefusesGarbage() throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        m.writeString("a\u0000\ud800");  // U+0000 and a lone surrogate survive in a body
        m.writeChar('\uffff');
        m.writeFloat(-0.0f);
        m.writeBytes(null);
        byte[] data = Wire.encodeStream(m.items());
        java.util.List<Typed> back = Wire.decodeStream(data);
        assertEquals("a\u0000\ud800", back.get(0).value);
        assertEquals('\uffff', back.get(1).value);
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits((Float) back.get(2).value));
        assertEquals(Kind.BYTES, back.get(3).kind);
        for (byte[] bad : new byte[][] {{12}, {5, 0, 0}, {9, 0, 0, 0, 5, 'a'}, {9, 0, 0, 0, 1, (byte) 0xFF},
            {9, 0, 0, 0, 2, (byte) 0xC0, (byte) 0x80}}) {
            MessageFormatException e = assertThrows(MessageFormatException.class, () -> Wire.decodeStream(bad));
            assertEquals("JMS-161", e.getErrorCode());
        }
    }
}
