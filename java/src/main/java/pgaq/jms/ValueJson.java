package pgaq.jms;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Locale;

/**
 * JMS values in the engine's JSON ({"type": kind, "value": ...}, pgaq.jms._values.to_json and
 * from_json, which pgaq.idap.payload shares): floats' NaN and infinities as "NaN", "INF",
 * "-INF" and negative zero as "-0.0" (jsonb's numeric has none of them), a float as its
 * shortest decimal, a char as a one-character string, a byte[] as upper-case hex.
 */
final class ValueJson {
    private ValueJson() {
    }

    /** The JSON value of a typed value (for {@link Json#write}). */
    static Object toJson(Typed t) {
        Object v = t.value;
        if (v == null) {
            return null;
        }
        switch (t.kind) {
            case FLOAT:
            case DOUBLE: {
                double d = ((Number) v).doubleValue();
                if (Double.isNaN(d)) {
                    return "NaN";
                } else if (Double.isInfinite(d)) {
                    return d > 0 ? "INF" : "-INF";
                } else if (d == 0 && 1 / d < 0) {
                    return "-0.0";
                }
                return v;  // Json.write prints a Float with a float's shortest digits
            }
            case CHAR:
                return String.valueOf(v);
            case BYTES:
                return Wire.hex((byte[]) v, true);
            default:
                return v;
        }
    }

    /**
     * The typed value of the engine's JSON, forgiving what SQL producers write as
     * from_json does: numbers as strings, a plain scalar with no (known) type as IDAP reads
     * one (boolean, long, double or String), a value its type cannot hold kept as the String
     * it is written as.
     */
    static Typed fromJson(String type, Object raw) {
        Kind kind = Kind.ofJson(type);
        if (kind == null) {
            kind = raw instanceof Boolean ? Kind.BOOLEAN
                    : raw instanceof Long || raw instanceof BigInteger ? Kind.LONG
                    : raw instanceof BigDecimal ? Kind.DOUBLE : Kind.STRING;
        }
        if (raw == null) {  // a null: only String and byte[] hold one
            return kind == Kind.BYTES ? Typed.NULL_BYTES : Typed.NULL_STRING;
        }
        Object v = value(kind, raw);
        return v == null ? new Typed(Kind.STRING, text(raw)) : new Typed(kind, v);
    }

    /** The value of kind {@code kind} written as {@code raw}, null when it cannot be one. */
    private static Object value(Kind kind, Object raw) {
        String s = text(raw);
        try {
            switch (kind) {
                case BOOLEAN:
                    if (raw instanceof Boolean) {
                        return raw;
                    }
                    s = s.toLowerCase(Locale.ROOT);
                    return s.equals("true") || s.equals("1");
                case BYTE: return Byte.valueOf(s.trim());
                case SHORT: return Short.valueOf(s.trim());
                case INT: return Integer.valueOf(s.trim());
                case LONG: return Long.valueOf(s.trim());
                case FLOAT:
                case DOUBLE: {
                    Double special = raw instanceof String ? special(s) : null;
                    double d = special != null ? special : Double.parseDouble(s.trim());
                    // Python's f32(float(text)): the double first, then the float nearest it
                    return kind == Kind.FLOAT ? (Object) (float) d : (Object) d;
                }
                case CHAR:
                    return s.length() == 1 ? (Object) s.charAt(0) : null;
                case BYTES:
                    return Wire.unhex(s);
                default:
                    return s;
            }
        } catch (IllegalArgumentException e) {  // NumberFormatException included
            return null;
        }
    }

    /** "NaN", "INF", "-INF", "Infinity"... in any case; null for any other text. */
    private static Double special(String s) {
        switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "nan":
                return Double.NaN;
            case "inf": case "+inf": case "infinity": case "+infinity":
                return Double.POSITIVE_INFINITY;
            case "-inf": case "-infinity":
                return Double.NEGATIVE_INFINITY;
            default:
                return null;
        }
    }

    /** A JSON value's text as Python's str() gives it for scalars (True, not true). */
    static String text(Object raw) {
        if (raw instanceof Boolean) {
            return (Boolean) raw ? "True" : "False";
        }
        return raw instanceof String ? (String) raw : Json.write(raw);
    }
}
