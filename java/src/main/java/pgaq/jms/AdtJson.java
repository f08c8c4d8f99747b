package pgaq.jms;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.jms.MessageFormatException;

/**
 * An AdtMessage's attributes in the engine's JSON, as pgaq.idap.payload writes an object
 * payload: a RAW (bytea) attribute as "\x" and its hex digits, PostgreSQL's spellings of a
 * float's special values, a date or time in ISO 8601.
 */
final class AdtJson {
    private AdtJson() {
    }

    /** The attributes as JSON values; MessageFormatException (JMS-195) for a value of no
     *  SQL attribute type. */
    static Map<String, Object> check(Map<String, Object> attributes) throws MessageFormatException {
        return object(attributes, "");
    }

    private static Map<String, Object> object(Map<?, ?> m, String path) throws MessageFormatException {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String)) {
                throw Errors.format("JMS-195", "an attribute name is a String, not "
                        + e.getKey() + " (in " + (path.isEmpty() ? "the payload" : path) + ")");
            }
            String name = (String) e.getKey();
            out.put(name, value(e.getValue(), path.isEmpty() ? name : path + "." + name));
        }
        return out;
    }

    private static Object value(Object v, String path) throws MessageFormatException {
        if (v == null || v instanceof String || v instanceof Boolean || v instanceof Byte
                || v instanceof Short || v instanceof Integer || v instanceof Long
                || v instanceof BigInteger || v instanceof BigDecimal) {
            return v;
        }
        if (v instanceof Float || v instanceof Double) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d)) {
                return "NaN";
            }
            return Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : v;
        }
        if (v instanceof Character) {
            return v.toString();
        }
        if (v instanceof byte[]) {
            return "\\x" + Wire.hex((byte[]) v, false);
        }
        if (v instanceof java.sql.Date || v instanceof java.sql.Time
                || v instanceof java.sql.Timestamp || v instanceof TemporalAccessor) {
            return v.toString();  // forms PostgreSQL's date and time input reads
        }
        if (v instanceof Date) {
            return ((Date) v).toInstant().toString();
        }
        if (v instanceof Map) {
            return object((Map<?, ?>) v, path);
        }
        if (v instanceof List || v instanceof Object[]) {
            List<Object> out = new ArrayList<>();
            int i = 0;
            for (Object item : v instanceof List ? (List<?>) v : Arrays.asList((Object[]) v)) {
                out.add(value(item, path + "[" + i++ + "]"));
            }
            return out;
        }
        throw Errors.format("JMS-195", path + ": a " + v.getClass().getName()
                + " is no attribute value (String, Boolean, Number, byte[], a date or time, Map, "
                + "List)");
    }

    /** Attributes as read from the engine's JSON: numbers as BigDecimal (JDBC's NUMBER). */
    @SuppressWarnings("unchecked")
    static Object received(Object v) {
        if (v instanceof Long) {
            return BigDecimal.valueOf((Long) v);
        } else if (v instanceof BigInteger) {
            return new BigDecimal((BigInteger) v);
        } else if (v instanceof Map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : ((Map<String, Object>) v).entrySet()) {
                out.put(e.getKey(), received(e.getValue()));
            }
            return out;
        } else if (v instanceof List) {
            List<Object> out = new ArrayList<>();
            for (Object item : (List<Object>) v) {
                out.add(received(item));
            }
            return out;
        }
        return v;
    }
}
