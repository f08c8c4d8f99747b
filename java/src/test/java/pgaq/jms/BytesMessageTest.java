package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import javax.jms.JMSException;
import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;

/** BytesMessage as JMS 1.1 defines it: DataOutputStream's bytes, write-only until reset(),
 *  MessageEOFException at the end, readBytes' counts. */
class BytesMessageTest {
    @Test
    void bodyIsDataOutputStreamsEncoding() throws JMSException, IOException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(buf);
        m.writeBoolean(true);
        d.writeBoolean(true);
        m.writeShort((short) -2);
        d.writeShort(-2);
        m.writeChar('\u4e2d');
        d.writeChar('\u4e2d');
        m.writeInt(-7);
        d.writeInt(-7);
        m.writeLong(Long.MIN_VALUE);
        d.writeLong(Long.MIN_VALUE);
        m.writeFloat(Float.NaN);
        d.writeFloat(Float.NaN);
        m.writeDouble(-0.0);
        d.writeDouble(-0.0);
        m.writeUTF("a\u0000\ud83d\ude00");  // modified UTF-8: C0 80 and both surrogates
        d.writeUTF("a\u0000\ud83d\ude00");
        m.writeBytes(new byte[] {1, 2, 3, 4}, 1, 2);
        d.write(new byte[] {2, 3});
        assertArrayEquals(buf.toByteArray(), m.body());
    }

    @Test
    void writeOnlyUntilResetThenReadOnly() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeInt(1);
        assertThrows(MessageNotReadableException.class, m::readInt);
        assertThrows(MessageNotReadableException.class, m::getBodyLength);
        m.reset();
        assertEquals(4, m.getBodyLength());
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(2));
        assertEquals(1, m.readInt());
        m.reset();
        assertEquals(1, m.readInt());
        m.clearBody();
        m.writeByte((byte) 9);
        m.reset();
        assertEquals(9, m.readByte());
        assertEquals(1, m.getBodyLength());
    }

    @Test
    void endOfBodyLeavesThePosition() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeShort((short) 0x0102);
        m.reset();
        assertThrows(MessageEOFException.class, m::readInt);
        assertThrows(MessageEOFException.class, m::readLong);
        assertEquals(1, m.readByte());
        assertEquals(2, m.readUnsignedByte());
        assertThrows(MessageEOFException.class, m::readBoolean);
        assertThrows(MessageEOFException.class, m::readUTF);
    }

    @Test
    void unsignedReads() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeByte((byte) -1);
        m.writeShort((short) -1);
        m.reset();
        assertEquals(255, m.readUnsignedByte());
        assertEquals(65535, m.readUnsignedShort());
    }

    @Test
    void readBytesFillsThenGivesTheRestThenMinusOne() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeBytes(new byte[] {1, 2, 3, 4, 5});
        m.reset();
        byte[] buf = new byte[2];
        assertEquals(2, m.readBytes(buf));
        assertArrayEquals(new byte[] {1, 2}, buf);
        assertEquals(2, m.readBytes(buf));
        assertEquals(1, m.readBytes(buf));
        assertEquals(5, buf[0]);
        assertEquals(-1, m.readBytes(buf));
        m.reset();
        byte[] big = new byte[10];
        assertEquals(1, m.readBytes(big, 1));
        assertEquals(4, m.readBytes(big, 10));
        assertEquals(-1, m.readBytes(big, 10));
        assertEquals(0, m.readBytes(big, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> m.readBytes(big, 11));
        assertThrows(IndexOutOfBoundsException.class, () -> m.readBytes(big, -1));
    }

    @Test
    void malformedUtfIsAFormatErrorThatLeavesThePosition() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeBytes(new byte[] {0, 2, (byte) 0xC3, 0x28});  // C3 28: no continuation byte
        m.reset();
        MessageFormatException e = assertThrows(MessageFormatException.class, m::readUTF);
        assertEquals("JMS-161", e.getErrorCode());
        assertEquals(2, m.readShort());
    }

    @Test
    void writeUtfHoldsAtMost65535Bytes() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        char[] a = new char[65535];
        Arrays.fill(a, 'a');
        m.writeUTF(new String(a));
        char[] e = new char[32768];
        Arrays.fill(e, '\u00e9');  // two bytes each
        assertThrows(MessageFormatException.class, () -> m.writeUTF(new String(e)));
        m.reset();
        assertEquals(65537, m.getBodyLength());
    }

    @Test
    void writeObjectTakesBoxedPrimitivesStringsAndBytes() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeObject(true);
        m.writeObject((byte) 1);
        m.writeObject((short) 2);
        m.writeObject('c');
        m.writeObject(3);
        m.writeObject(4L);
        m.writeObject(5f);
        m.writeObject(6d);
        m.writeObject("s");
        m.writeObject(new byte[] {7});
        assertThrows(MessageFormatException.class, () -> m.writeObject(new Object()));
        assertThrows(NullPointerException.class, () -> m.writeObject(null));
        m.reset();
        assertTrue(m.readBoolean());
        assertEquals(1, m.readByte());
        assertEquals(2, m.readShort());
        assertEquals('c', m.readChar());
        assertEquals(3, m.readInt());
        assertEquals(4L, m.readLong());
        assertEquals(5f, m.readFloat());
        assertEquals(6d, m.readDouble());
        assertEquals("s", m.readUTF());
        assertEquals(7, m.readByte());
    }

    @Test
    void receivedBodyIsReadOnlyAndReadyToRead() throws JMSException {
        AQjmsBytesMessage m = new AQjmsBytesMessage();
        m.writeInt(42);
        m.setReadOnly();
        assertEquals(42, m.readInt());
        assertThrows(MessageNotWriteableException.class, () -> m.writeInt(1));
        m.clearBody();
        m.writeInt(1);  // writable, empty again
        m.reset();
        assertEquals(4, m.getBodyLength());
    }
}
