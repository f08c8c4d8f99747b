package pgaq.jms;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.jms.JMSException;
import javax.jms.StreamMessage;

/**
 * A sequence of typed fields read back in order with the conversions of Oracle Database
 * Advanced Queuing User's Guide, "JMS Message Bodies" (Table 11-1), stored in pgaq's tagged
 * format (Wire). Write-only until reset(), read-only after it. A read that fails
 * (MessageFormatException, NumberFormatException) leaves the position where it was, so the
 * field can be read again as another type (JMS 1.1, StreamMessage).
 */
public class AQjmsStreamMessage extends AQjmsMessage implements StreamMessage {
    private List<Typed> items = new ArrayList<>();
    private int index;
    /** Where a byte[] field being read in parts (readBytes) is; -1: none is. */
    private int bytesOffset = -1;

    public AQjmsStreamMessage() {
    }

    @Override
    String bodyKind() {
        return "JMS_STREAM";
    }

    @Override
    void setReadOnly() {
        super.setReadOnly();
        rewind();
    }

    List<Typed> items() {
        return items;
    }

    /** The fields as received, bypassing the read-only state (the codec). */
    void items(List<Typed> fields) {
        items = new ArrayList<>(fields);
        rewind();
    }

    private void rewind() {
        index = 0;
        bytesOffset = -1;
    }

    @Override
    public void reset() {
        bodyReadOnly = true;
        rewind();
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        items = new ArrayList<>();
        rewind();
    }

    // -- writing ----------------------------------------------------------------------------
    private void write(Kind kind, Object value) throws JMSException {
        checkBodyWritable();
        items.add(value == null ? (kind == Kind.BYTES ? Typed.NULL_BYTES : Typed.NULL_STRING)
                : new Typed(kind, value));
    }

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        write(Kind.BOOLEAN, value);
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        write(Kind.BYTE, value);
    }

    @Override
    public void writeShort(short value) throws JMSException {
        write(Kind.SHORT, value);
    }

    @Override
    public void writeChar(char value) throws JMSException {
        write(Kind.CHAR, value);
    }

    @Override
    public void writeInt(int value) throws JMSException {
        write(Kind.INT, value);
    }

    @Override
    public void writeLong(long value) throws JMSException {
        write(Kind.LONG, value);
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        write(Kind.FLOAT, value);
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        write(Kind.DOUBLE, value);
    }

    /** null writes a null field, which reads back as null (or false, or a
     *  NumberFormatException for a number). */
    @Override
    public void writeString(String value) throws JMSException {
        write(Kind.STRING, value);
    }

    /** A byte[] field holding a copy of value; null writes a null byte[] field. */
    @Override
    public void writeBytes(byte[] value) throws JMSException {
        write(Kind.BYTES, value == null ? null : value.clone());
    }

    @Override
    public void writeBytes(byte[] value, int offset, int length) throws JMSException {
        if (offset < 0 || length < 0 || offset + length > value.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length
                    + " outside the " + value.length + " bytes");
        }
        write(Kind.BYTES, Arrays.copyOfRange(value, offset, offset + length));
    }

    /** A boxed primitive, String or byte[] as its own type; null as a null String field. */
    @Override
    public void writeObject(Object value) throws JMSException {
        if (value == null) {
            write(Kind.STRING, null);
            return;
        }
        Typed t = Values.typedObject(value);
        write(t.kind, t.value);
    }

    // -- reading ----------------------------------------------------------------------------
    private Typed current() throws JMSException {
        if (!bodyReadOnly) {
            throw Errors.notReadable("the body is write-only: call reset() before reading");
        }
        if (index >= items.size()) {
            throw Errors.eof("end of the stream");
        }
        return items.get(index);
    }

    private Object read(Kind target) throws JMSException {
        Typed t = current();
        if (bytesOffset >= 0) {
            throw Errors.format(Errors.FORMAT, "a byte[] field is being read: read it to its "
                    + "end with readBytes first");
        }
        Object v = Values.convert(t, target, false);
        index++;
        return v;
    }

    @Override
    public boolean readBoolean() throws JMSException {
        return (Boolean) read(Kind.BOOLEAN);
    }

    @Override
    public byte readByte() throws JMSException {
        return (Byte) read(Kind.BYTE);
    }

    @Override
    public short readShort() throws JMSException {
        return (Short) read(Kind.SHORT);
    }

    @Override
    public char readChar() throws JMSException {
        return (Character) read(Kind.CHAR);
    }

    @Override
    public int readInt() throws JMSException {
        return (Integer) read(Kind.INT);
    }

    @Override
    public long readLong() throws JMSException {
        return (Long) read(Kind.LONG);
    }

    @Override
    public float readFloat() throws JMSException {
        return (Float) read(Kind.FLOAT);
    }

    @Override
    public double readDouble() throws JMSException {
        return (Double) read(Kind.DOUBLE);
    }

    @Override
    public String readString() throws JMSException {
        return (String) read(Kind.STRING);
    }

    /** The field as written (a boxed primitive, String, a copy of a byte[], or null). */
    @Override
    public Object readObject() throws JMSException {
        Typed t = current();
        if (bytesOffset >= 0) {
            throw Errors.format(Errors.FORMAT, "a byte[] field is being read: read it to its "
                    + "end with readBytes first");
        }
        index++;
        return t.exported();
    }

    /**
     * JMS's readBytes(byte[]): fills value from a byte[] field and returns the count; a
     * field longer than value is read by calling again until the count is below
     * value.length (then -1 if it ended exactly at value's end). A null field gives -1, an
     * empty one 0. The next field can be read only once this one is read to its end.
     */
    @Override
    public int readBytes(byte[] value) throws JMSException {
        Typed t = current();
        if (t.kind != Kind.BYTES) {
            throw Errors.format(Errors.CONVERSION, "a " + t.kind.java
                    + " value cannot be read as byte[]");
        }
        byte[] data = (byte[]) t.value;
        if (data == null) {
            index++;
            return -1;
        }
        if (data.length == 0) {
            index++;
            return 0;
        }
        int offset = Math.max(bytesOffset, 0);
        int remaining = data.length - offset;
        if (remaining == 0) {  // the previous call filled value exactly at the end
            bytesOffset = -1;
            index++;
            return -1;
        }
        int k = Math.min(value.length, remaining);
        System.arraycopy(data, offset, value, 0, k);
        if (k < value.length) {
            bytesOffset = -1;
            index++;
        } else {
            bytesOffset = offset + k;
        }
        return k;
    }
}
