package pgaq.jms;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.jms.BytesMessage;
import javax.jms.JMSException;

/**
 * A stream of bytes written and read as java.io.DataOutputStream and DataInputStream do
 * (big-endian; writeUTF in modified UTF-8 behind a 2-byte length): pgaq.jms.wire's layout.
 * Write-only until reset(), read-only after it (JMS 1.1 3.11.3). A read that fails leaves
 * the position where it was.
 */
public class AQjmsBytesMessage extends AQjmsMessage implements BytesMessage {
    private byte[] buf = new byte[0];
    private int count;
    private int pos;
    /** The body came from setInputStream: write calls are refused. */
    private boolean streamed;

    public AQjmsBytesMessage() {
    }

    @Override
    String bodyKind() {
        return "JMS_BYTES";
    }

    @Override
    void setReadOnly() {
        super.setReadOnly();
        pos = 0;
    }

    /** The body as stored. */
    byte[] body() {
        return Arrays.copyOf(buf, count);
    }

    /** The body as received, bypassing the read-only state (the codec). */
    void body(byte[] data) {
        buf = data.clone();
        count = data.length;
        pos = 0;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        buf = new byte[0];
        count = 0;
        pos = 0;
        streamed = false;
    }

    @Override
    public void reset() {
        bodyReadOnly = true;
        pos = 0;
    }

    private void readable() throws JMSException {
        if (!bodyReadOnly) {
            throw Errors.notReadable("the body is write-only: call reset() before reading");
        }
    }

    @Override
    public long getBodyLength() throws JMSException {
        readable();
        return count;
    }

    // -- writing ----------------------------------------------------------------------------
    private void put(byte[] data, int off, int len) throws JMSException {
        checkBodyWritable();
        if (streamed) {
            throw Streaming.mixed("a write call after setInputStream");
        }
        if (count + len > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(count + len, buf.length * 2 + 16));
        }
        System.arraycopy(data, off, buf, count, len);
        count += len;
    }

    private ByteBuffer num(int size) {
        return ByteBuffer.allocate(size);  // big-endian, as DataOutputStream
    }

    @Override
    public void writeBoolean(boolean value) throws JMSException {
        put(new byte[] {(byte) (value ? 1 : 0)}, 0, 1);
    }

    @Override
    public void writeByte(byte value) throws JMSException {
        put(new byte[] {value}, 0, 1);
    }

    @Override
    public void writeShort(short value) throws JMSException {
        put(num(2).putShort(value).array(), 0, 2);
    }

    @Override
    public void writeChar(char value) throws JMSException {
        put(num(2).putChar(value).array(), 0, 2);
    }

    @Override
    public void writeInt(int value) throws JMSException {
        put(num(4).putInt(value).array(), 0, 4);
    }

    @Override
    public void writeLong(long value) throws JMSException {
        put(num(8).putLong(value).array(), 0, 8);
    }

    @Override
    public void writeFloat(float value) throws JMSException {
        put(num(4).putFloat(value).array(), 0, 4);
    }

    @Override
    public void writeDouble(double value) throws JMSException {
        put(num(8).putDouble(value).array(), 0, 8);
    }

    /** MessageFormatException (JMS-161) when the encoded string exceeds 65535 bytes. */
    @Override
    public void writeUTF(String value) throws JMSException {
        checkBodyWritable();
        if (streamed) {
            throw Streaming.mixed("a write call after setInputStream");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(value.length() + 2);
        try {
            new DataOutputStream(out).writeUTF(value);
        } catch (UTFDataFormatException e) {
            throw Errors.format(Errors.FORMAT, "encoded string too long (writeUTF holds 65535 "
                    + "bytes)", e);
        } catch (IOException e) {
            throw new IllegalStateException(e);  // a ByteArrayOutputStream does not fail
        }
        byte[] data = out.toByteArray();
        put(data, 0, data.length);
    }

    @Override
    public void writeBytes(byte[] value) throws JMSException {
        put(value, 0, value.length);
    }

    @Override
    public void writeBytes(byte[] value, int offset, int length) throws JMSException {
        if (offset < 0 || length < 0 || offset + length > value.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length
                    + " outside the " + value.length + " bytes");
        }
        put(value, offset, length);
    }

    /** Boolean, Byte, Short, Character, Integer, Long, Float, Double, String (writeUTF) or
     *  byte[]; NullPointerException for null and MessageFormatException for any other. */
    @Override
    public void writeObject(Object value) throws JMSException {
        if (value == null) {
            throw new NullPointerException("writeObject(null)");
        }
        Kind k = Values.kindOf(value);
        if (k == null) {
            throw Errors.format(Errors.FORMAT, value.getClass().getName()
                    + " is not a BytesMessage value type");
        }
        switch (k) {
            case BOOLEAN: writeBoolean((Boolean) value); break;
            case BYTE: writeByte((Byte) value); break;
            case SHORT: writeShort((Short) value); break;
            case CHAR: writeChar((Character) value); break;
            case INT: writeInt((Integer) value); break;
            case LONG: writeLong((Long) value); break;
            case FLOAT: writeFloat((Float) value); break;
            case DOUBLE: writeDouble((Double) value); break;
            case STRING: writeUTF((String) value); break;
            default: writeBytes((byte[]) value); break;
        }
    }

    // -- reading ----------------------------------------------------------------------------
    /** The next n bytes as a buffer; MessageEOFException (position unchanged) past the end. */
    private ByteBuffer take(int n, String what) throws JMSException {
        readable();
        if (count - pos < n) {
            throw Errors.eof("end of message body reading a " + what);
        }
        ByteBuffer b = ByteBuffer.wrap(buf, pos, n);
        pos += n;
        return b;
    }

    @Override
    public boolean readBoolean() throws JMSException {
        return take(1, "boolean").get() != 0;
    }

    @Override
    public byte readByte() throws JMSException {
        return take(1, "byte").get();
    }

    @Override
    public int readUnsignedByte() throws JMSException {
        return take(1, "byte").get() & 0xFF;
    }

    @Override
    public short readShort() throws JMSException {
        return take(2, "short").getShort();
    }

    @Override
    public int readUnsignedShort() throws JMSException {
        return take(2, "short").getShort() & 0xFFFF;
    }

    @Override
    public char readChar() throws JMSException {
        return take(2, "char").getChar();
    }

    @Override
    public int readInt() throws JMSException {
        return take(4, "int").getInt();
    }

    @Override
    public long readLong() throws JMSException {
        return take(8, "long").getLong();
    }

    @Override
    public float readFloat() throws JMSException {
        return take(4, "float").getFloat();
    }

    @Override
    public double readDouble() throws JMSException {
        return take(8, "double").getDouble();
    }

    /** MessageFormatException (JMS-161) for malformed modified UTF-8, MessageEOFException
     *  for a string past the end; either way the position is unchanged. */
    @Override
    public String readUTF() throws JMSException {
        int start = pos;
        int n = readUnsignedShort();
        pos = start;
        take(2 + n, "UTF string");
        try {
            return new DataInputStream(new ByteArrayInputStream(buf, start, 2 + n)).readUTF();
        } catch (IOException e) {
            pos = start;
            throw Errors.format(Errors.FORMAT, "malformed modified UTF-8", e);
        }
    }

    @Override
    public int readBytes(byte[] value) throws JMSException {
        return readBytes(value, value.length);
    }

    /** Up to {@code length} bytes into value; the count read, -1 at the end of the body;
     *  IndexOutOfBoundsException when length is negative or longer than value. */
    @Override
    public int readBytes(byte[] value, int length) throws JMSException {
        readable();
        if (length < 0 || length > value.length) {
            throw new IndexOutOfBoundsException("length " + length + " outside the buffer (0.."
                    + value.length + ")");
        }
        if (length == 0) {
            return 0;
        }
        if (pos == count) {
            return -1;
        }
        int k = Math.min(length, count - pos);
        System.arraycopy(buf, pos, value, 0, k);
        pos += k;
        return k;
    }

    // -- Oracle's JMS streaming ("JMS Streaming"; what pgaq does: see Streaming) -------------
    /** The body is the stream's data, read to its end now (the stream is left open). Refused
     *  (IllegalStateException, JMS-191) once the body was written to, and write calls are
     *  refused after it, as Oracle's guide says. */
    public void setInputStream(InputStream inputStream) throws JMSException {
        checkBodyWritable();
        if (count > 0 || streamed) {
            throw Streaming.mixed("setInputStream on a body already given");
        }
        byte[] data = Streaming.readAll(inputStream);
        put(data, 0, data.length);
        streamed = true;
    }

    /** Whether Oracle's server would have streamed this received body: it is longer than the
     *  threshold and streaming is on (see Streaming). The body is here anyway. */
    public boolean isLargeBody() throws JMSException {
        return Streaming.large(this, count);
    }

    /** The whole body, whatever the read position (left as it is), written to outputStream
     *  8192 bytes at a time; MessageNotReadableException before reset() on a message being
     *  written. */
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
        readable();
        return Streaming.write(buf, count, outputStream, chunkSize, timeout);
    }
}
