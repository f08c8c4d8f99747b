package pgaq.jms;

/**
 * A JMS value and the Java type it was written as: Boolean, Byte, Short, Character, Integer,
 * Long, Float, Double, String or byte[] for its kind, or null (a null String or byte[], which
 * the engine's JSON and the stream body tell apart).
 */
final class Typed {
    static final Typed NULL_STRING = new Typed(Kind.STRING, null);
    static final Typed NULL_BYTES = new Typed(Kind.BYTES, null);

    final Kind kind;
    final Object value;

    Typed(Kind kind, Object value) {
        this.kind = kind;
        this.value = value;
    }

    /** The value as JMS hands it out: a copy of a byte[] (the caller may change it). */
    Object exported() {
        return value instanceof byte[] ? ((byte[]) value).clone() : value;
    }

    @Override
    public String toString() {
        return kind.java + " " + value;
    }
}
