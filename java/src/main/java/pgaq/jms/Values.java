package pgaq.jms;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import javax.jms.MessageFormatException;

/**
 * JMS value conversions: a value written as one Java type read as another. The table is
 * Oracle Database Advanced Queuing User's Guide, "JMS Message Bodies" (Table 11-1,
 * StreamMessage, and Table 11-2, MapMessage, which are the same), and JMS 1.1 section 3.5.4
 * for properties (the same rows without char and byte[]). Where Oracle's table lets a String
 * be read as a char (JMS 1.1's does not), a String of exactly one character converts, as in
 * pgaq.jms._values.
 */
final class Values {
    private static final Map<Kind, EnumSet<Kind>> ALLOWED = new EnumMap<>(Kind.class);

    static {
        ALLOWED.put(Kind.BOOLEAN, EnumSet.of(Kind.BOOLEAN, Kind.STRING));
        ALLOWED.put(Kind.BYTE, EnumSet.of(Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG, Kind.STRING));
        ALLOWED.put(Kind.SHORT, EnumSet.of(Kind.SHORT, Kind.INT, Kind.LONG, Kind.STRING));
        ALLOWED.put(Kind.CHAR, EnumSet.of(Kind.CHAR, Kind.STRING));
        ALLOWED.put(Kind.INT, EnumSet.of(Kind.INT, Kind.LONG, Kind.STRING));
        ALLOWED.put(Kind.LONG, EnumSet.of(Kind.LONG, Kind.STRING));
        ALLOWED.put(Kind.FLOAT, EnumSet.of(Kind.FLOAT, Kind.DOUBLE, Kind.STRING));
        ALLOWED.put(Kind.DOUBLE, EnumSet.of(Kind.DOUBLE, Kind.STRING));
        ALLOWED.put(Kind.STRING, EnumSet.complementOf(EnumSet.of(Kind.BYTES)));
        ALLOWED.put(Kind.BYTES, EnumSet.of(Kind.BYTES));
    }

    private Values() {
    }

    /** Whether a value written as {@code from} may be read as {@code to}; for properties
     *  (JMS 1.1 3.5.4) neither may be char or byte[]. */
    static boolean allowed(Kind from, Kind to, boolean property) {
        if (property && !(from.isProperty() && to.isProperty())) {
            return false;
        }
        return ALLOWED.get(from).contains(to);
    }

    /**
     * The value read as {@code target}: the boxed Java type of the target kind (a copy of a
     * byte[]), or null. MessageFormatException (JMS-117) for a conversion the table forbids;
     * java.lang.NumberFormatException for a String (or null) that does not parse as the
     * number, as JMS 1.1 says valueOf(String) would (null included, for every number type).
     */
    static Object convert(Typed t, Kind target, boolean property) throws MessageFormatException {
        if (!allowed(t.kind, target, property)) {
            throw Errors.format(Errors.CONVERSION, "a " + t.kind.java + " value cannot be read as "
                    + target.java);
        }
        Object v = t.value;
        if (t.kind == target) {
            return t.exported();
        }
        if (target == Kind.STRING) {
            return v == null ? null : String.valueOf(v);  // Float/Double.toString, "true"
        }
        if (t.kind == Kind.STRING) {
            return parse((String) v, target);
        }
        // widening: byte, short, int to a larger integer; float to double
        if (target == Kind.DOUBLE) {
            return ((Float) v).doubleValue();
        }
        long n = ((Number) v).longValue();
        switch (target) {
            case SHORT: return (short) n;
            case INT: return (int) n;
            default: return n;
        }
    }

    private static Object parse(String s, Kind target) throws MessageFormatException {
        switch (target) {
            case BOOLEAN:
                return Boolean.valueOf(s);
            case CHAR:
                if (s == null || s.length() != 1) {
                    throw Errors.format(Errors.CONVERSION, "a String of "
                            + (s == null ? "null" : s.length()) + " characters cannot be read as char");
                }
                return s.charAt(0);
            default:
                break;
        }
        if (s == null) {
            // JMS 1.1 reads a null as <type>.valueOf(null): Float's and Double's throw a
            // NullPointerException (as ActiveMQ's do), the integers' a NumberFormatException
            if (target == Kind.FLOAT || target == Kind.DOUBLE) {
                throw new NullPointerException("null cannot be read as " + target.java);
            }
            throw new NumberFormatException("null cannot be read as " + target.java);
        }
        switch (target) {
            case BYTE: return Byte.valueOf(s);
            case SHORT: return Short.valueOf(s);
            case INT: return Integer.valueOf(s);
            case LONG: return Long.valueOf(s);
            case FLOAT: return Float.valueOf(s);
            default: return Double.valueOf(s);
        }
    }

    /** The kind of a boxed JMS value (setObject, writeObject), null for any other object. */
    static Kind kindOf(Object v) {
        if (v instanceof Boolean) {
            return Kind.BOOLEAN;
        } else if (v instanceof Byte) {
            return Kind.BYTE;
        } else if (v instanceof Short) {
            return Kind.SHORT;
        } else if (v instanceof Character) {
            return Kind.CHAR;
        } else if (v instanceof Integer) {
            return Kind.INT;
        } else if (v instanceof Long) {
            return Kind.LONG;
        } else if (v instanceof Float) {
            return Kind.FLOAT;
        } else if (v instanceof Double) {
            return Kind.DOUBLE;
        } else if (v instanceof String) {
            return Kind.STRING;
        } else if (v instanceof byte[]) {
            return Kind.BYTES;
        }
        return null;
    }

    /** A boxed JMS value as a Typed (a copy of a byte[]); MessageFormatException for null or
     *  an object of no JMS value type. */
    static Typed typedObject(Object v) throws MessageFormatException {
        Kind k = kindOf(v);
        if (k == null) {
            throw Errors.format(Errors.FORMAT, (v == null ? "null" : v.getClass().getName())
                    + " is not a JMS value type (a boxed primitive, String or byte[])");
        }
        return new Typed(k, v instanceof byte[] ? ((byte[]) v).clone() : v);
    }
}
