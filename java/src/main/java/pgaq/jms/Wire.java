package pgaq.jms;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.jms.MessageFormatException;

/**
 * Body layouts shared with pgaq.jms.wire: a StreamMessage body is pgaq's tagged format
 * (one tag byte per field, numbers big-endian as DataOutputStream writes them, a String or
 * byte[] behind a 4-byte length, Strings in UTF-8 with lone surrogates kept as their three
 * bytes, as Python's "surrogatepass" does); a change here is a change to what other clients
 * read. BytesMessage bodies are DataOutputStream's own encoding (AQjmsBytesMessage).
 */
final class Wire {
    // the tags of pgaq.jms.wire._TAGS
    private static final int NULL = 0;
    private static final int BOOLEAN = 1;
    private static final int BYTE = 2;
    private static final int CHAR = 3;
    private static final int SHORT = 4;
    private static final int INT = 5;
    private static final int LONG = 6;
    private static final int DOUBLE = 7;
    private static final int FLOAT = 8;
    private static final int STRING = 9;
    private static final int BYTES = 10;
    private static final int NULL_BYTES = 11;
    private static final char[] HEX_UPPER = "0123456789ABCDEF".toCharArray();
    private static final char[] HEX_LOWER = "0123456789abcdef".toCharArray();

    private Wire() {
    }

    // -- hex ----------------------------------------------------------------------------------
    static String hex(byte[] data, boolean upper) {
        char[] digits = upper ? HEX_UPPER : HEX_LOWER;
        char[] out = new char[data.length * 2];
        for (int i = 0; i < data.length; i++) {
            out[2 * i] = digits[(data[i] >> 4) & 0xF];
            out[2 * i + 1] = digits[data[i] & 0xF];
        }
        return new String(out);
    }

    /** Hex digits, bytea's "\x" before them or not; IllegalArgumentException otherwise. */
    static byte[] unhex(String text) {
        String s = text.startsWith("\\x") ? text.substring(2) : text;
        if (s.length() % 2 != 0) {
            throw new IllegalArgumentException("an odd number of hex digits");
        }
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = Character.digit(s.charAt(2 * i), 16);
            int lo = Character.digit(s.charAt(2 * i + 1), 16);
            if (hi < 0 || lo < 0 || s.charAt(2 * i) > 'f' || s.charAt(2 * i + 1) > 'f') {
                throw new IllegalArgumentException("not a hex digit at " + 2 * i);
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return out;
    }

    // -- UTF-8 with lone surrogates ----------------------------------------------------------
    static byte[] utf8(String s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            int c = s.charAt(i);
            if (Character.isHighSurrogate((char) c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                c = Character.toCodePoint((char) c, s.charAt(++i));
            }
            if (c < 0x80) {
                out.write(c);
            } else if (c < 0x800) {
                out.write(0xC0 | c >> 6);
                out.write(0x80 | c & 0x3F);
            } else if (c < 0x10000) {  // a lone surrogate too: its three bytes
                out.write(0xE0 | c >> 12);
                out.write(0x80 | c >> 6 & 0x3F);
                out.write(0x80 | c & 0x3F);
            } else {
                out.write(0xF0 | c >> 18);
                out.write(0x80 | c >> 12 & 0x3F);
                out.write(0x80 | c >> 6 & 0x3F);
                out.write(0x80 | c & 0x3F);
            }
        }
        return out.toByteArray();
    }

    /** Strict UTF-8 (no overlong forms, nothing past U+10FFFF) that takes encoded surrogates,
     *  as Python's "surrogatepass" decoding; IllegalArgumentException otherwise. */
    static String fromUtf8(byte[] b, int off, int len) {
        StringBuilder out = new StringBuilder(len);
        int i = off;
        int end = off + len;
        while (i < end) {
            int c = b[i] & 0xFF;
            int n;
            int cp;
            int min;
            if (c < 0x80) {
                out.append((char) c);
                i++;
                continue;
            } else if (c >= 0xC2 && c <= 0xDF) {
                n = 1; cp = c & 0x1F; min = 0x80;
            } else if (c >= 0xE0 && c <= 0xEF) {
                n = 2; cp = c & 0x0F; min = 0x800;
            } else if (c >= 0xF0 && c <= 0xF4) {
                n = 3; cp = c & 0x07; min = 0x10000;
            } else {
                throw new IllegalArgumentException("invalid UTF-8 byte at " + (i - off));
            }
            if (i + n >= end) {
                throw new IllegalArgumentException("truncated UTF-8 at " + (i - off));
            }
            for (int k = 1; k <= n; k++) {
                int cc = b[i + k] & 0xFF;
                if ((cc & 0xC0) != 0x80) {
                    throw new IllegalArgumentException("invalid UTF-8 at " + (i - off));
                }
                cp = cp << 6 | cc & 0x3F;
            }
            if (cp < min || cp > 0x10FFFF) {
                throw new IllegalArgumentException("invalid UTF-8 at " + (i - off));
            }
            out.appendCodePoint(cp);
            i += n + 1;
        }
        return out.toString();
    }

    // -- StreamMessage bodies ----------------------------------------------------------------
    static byte[] encodeStream(List<Typed> items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer num = ByteBuffer.allocate(8);  // big-endian by default, as DataOutputStream
        for (Typed t : items) {
            Object v = t.value;
            num.clear();
            if (v == null) {
                out.write(t.kind == Kind.BYTES ? NULL_BYTES : NULL);
                continue;
            }
            switch (t.kind) {
                case BOOLEAN: out.write(BOOLEAN); num.put((byte) ((Boolean) v ? 1 : 0)); break;
                case BYTE: out.write(BYTE); num.put((Byte) v); break;
                case CHAR: out.write(CHAR); num.putChar((Character) v); break;
                case SHORT: out.write(SHORT); num.putShort((Short) v); break;
                case INT: out.write(INT); num.putInt((Integer) v); break;
                case LONG: out.write(LONG); num.putLong((Long) v); break;
                case DOUBLE: out.write(DOUBLE); num.putDouble((Double) v); break;
                case FLOAT: out.write(FLOAT); num.putFloat((Float) v); break;
                default: {
                    byte[] data = t.kind == Kind.STRING ? utf8((String) v) : (byte[]) v;
                    out.write(t.kind == Kind.STRING ? STRING : BYTES);
                    num.putInt(data.length);
                    out.write(num.array(), 0, 4);
                    out.write(data, 0, data.length);
                    continue;
                }
            }
            out.write(num.array(), 0, num.position());
        }
        return out.toByteArray();
    }

    static List<Typed> decodeStream(byte[] data) throws MessageFormatException {
        List<Typed> items = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(data);
        try {
            while (in.hasRemaining()) {
                int tag = in.get() & 0xFF;
                switch (tag) {
                    case NULL: items.add(Typed.NULL_STRING); break;
                    case NULL_BYTES: items.add(Typed.NULL_BYTES); break;
                    case BOOLEAN: items.add(new Typed(Kind.BOOLEAN, in.get() != 0)); break;
                    case BYTE: items.add(new Typed(Kind.BYTE, in.get())); break;
                    case CHAR: items.add(new Typed(Kind.CHAR, in.getChar())); break;
                    case SHORT: items.add(new Typed(Kind.SHORT, in.getShort())); break;
                    case INT: items.add(new Typed(Kind.INT, in.getInt())); break;
                    case LONG: items.add(new Typed(Kind.LONG, in.getLong())); break;
                    case DOUBLE: items.add(new Typed(Kind.DOUBLE, in.getDouble())); break;
                    case FLOAT: items.add(new Typed(Kind.FLOAT, in.getFloat())); break;
                    case STRING:
                    case BYTES: {
                        long size = in.getInt() & 0xFFFFFFFFL;
                        if (size > in.remaining()) {
                            throw new IllegalArgumentException("a field past the end");
                        }
                        int at = in.position();
                        in.position(at + (int) size);
                        items.add(tag == STRING
                                ? new Typed(Kind.STRING, fromUtf8(data, at, (int) size))
                                : new Typed(Kind.BYTES, Arrays.copyOfRange(data, at, at + (int) size)));
                        break;
                    }
                    default:
                        throw new IllegalArgumentException("unknown tag " + tag);
                }
            }
        } catch (RuntimeException e) {  // BufferUnderflowException, a bad tag or UTF-8
            throw Errors.format(Errors.FORMAT, "not a StreamMessage body (at byte "
                    + in.position() + ")", e);
        }
        return items;
    }
}
