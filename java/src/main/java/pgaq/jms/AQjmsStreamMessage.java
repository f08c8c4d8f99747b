package pgaq.jms;

import java.io.InputStream;
import java.io.OutputStream;
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
    /** The body came from setInputStream: write calls are refused. */
    private boolean streamed;

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
        streamed = false;
        rewind();
    }

    // -- writing ----------------------------------------------------------------------------
    private void write(Kind kind, Object value) throws JMSException {
        checkBodyWritable();
        if (streamed) {
            throw Streaming.mixed("a write call after setInputStream");
        }
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

    // -- Oracle's JMS streaming ("JMS Streaming"; what pgaq does: see Streaming) -------------
    /** The body is one byte[] field holding the stream's data, read to its end now (the
     *  stream is left open); readBytes reads it back, as getBody does. Refused
     *  (IllegalStateException, JMS-191) once a field was written, and write calls are refused
     *  after it. */
    public void setInputStream(InputStream inputStream) throws JMSException {
        checkBodyWritable();
        if (!items.isEmpty() || streamed) {
            throw Streaming.mixed("setInputStream on a body already given");
        }
        byte[] data = Streaming.readAll(inputStream);
        items.add(new Typed(Kind.BYTES, data));
        streamed = true;
    }

    /** The message data a stream carries: the bytes of the body's byte[] fields, in order;
     *  MessageFormatException (JMS-161) for a body with fields of other types. */
    private byte[] data() throws JMSException {
        if (!bodyReadOnly) {
            throw Errors.notReadable("the body is write-only: call reset() before reading");
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (Typed t : items) {
            if (t.kind != Kind.BYTES) {
                throw Errors.format(Errors.FORMAT, "a " + t.kind.java + " field is not message data "
                        + "a stream carries (only byte[] fields are)");
            }
            if (t.value != null) {
                byte[] b = (byte[]) t.value;
                out.write(b, 0, b.length);
            }
        }
        return out.toByteArray();
    }

    /** Oracle's AQjmsStreamMessage.getBodyLength: the length of the message data (the byte[]
     *  fields' bytes). */
    public long getBodyLength() throws JMSException {
        return data().length;
    }

    /** Whether Oracle's server would have streamed this received body (see Streaming); false
     *  for a body of typed fields, which is not message data a stream carries. */
    public boolean isLargeBody() throws JMSException {
        for (Typed t : items) {
            if (t.kind != Kind.BYTES) {
                return false;
            }
        }
        return Streaming.large(this, data().length);
    }

    /** The message data written to outputStream 8192 bytes at a time, whatever the read
     *  position (left as it is). */
    public OutputStream getBody(OutputStream outputStream) throws JMSException {
        return getBody(outputStream, Streaming.DEFAULT_CHUNK, 0L);
    }

    public OutputStream getBody(OutputStream outputStream, int chunkSize) throws JMSException {
        return getBody(outputStream, chunkSize, 0L);
    }

    /** As getBody, within {@code timeout} ms (0 never expires, a negative one is ignored). */
    public OutputStream getBody(OutputStream outputStream, long timeout) throws JMSException {
        return getBody(outputStream, Streaming.DEFAULT_CHUNK, timeout);
    }

    public OutputStream getBody(OutputStream outputStream, int chunkSize, long timeout) throws JMSException {
        byte[] data = data();
        return Streaming.write(data, data.length, outputStream, chunkSize, timeout);
    }
}
