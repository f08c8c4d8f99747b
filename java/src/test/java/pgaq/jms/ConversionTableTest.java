package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every cell of the conversion tables, written from the specifications, not from the code:
 * Oracle Database Advanced Queuing User's Guide, "JMS Message Bodies", Table 11-1
 * (StreamMessage) and Table 11-2 (MapMessage, the same marks), and JMS 1.1 3.5.4 for
 * properties. An allowed cell reads the value (widened, or String.valueOf, or parsed from a
 * String); a forbidden one is a MessageFormatException, after which a StreamMessage reads
 * the same field again.
 */
class ConversionTableTest {
    static final String[] COLUMNS = {
        "boolean", "byte", "short", "char", "int", "long", "float", "double", "String", "byte[]"};
    // copied as printed: a value written as the row type can be read as the column type
    static final String TABLE_11_1 = String.join("\n",
            "boolean X - - - - - - - X -",
            "byte    - X X - X X - - X -",
            "short   - - X - X X - - X -",
            "char    - - - X - - - - X -",
            "int     - - - - X X - - X -",
            "long    - - - - - X - - X -",
            "float   - - - - - - X X X -",
            "double  - - - - - - - X X -",
            "String  X X X X X X X X X -",
            "byte[]  - - - - - - - - - X");
    // JMS 1.1 3.5.4: the same without char and byte[] (properties have neither)
    static final String TABLE_3_5_4 = String.join("\n",
            "boolean X - - - - - - X",
            "byte    - X X X X - - X",
            "short   - - X X X - - X",
            "int     - - - X X - - X",
            "long    - - - - X - - X",
            "float   - - - - - X X X",
            "double  - - - - - - X X",
            "String  X X X X X X X X");
    static final String[] PROPERTY_COLUMNS = {
        "boolean", "byte", "short", "int", "long", "float", "double", "String"};

    static List<Arguments> cells(String table, String[] columns) {
        List<Arguments> out = new ArrayList<>();
        for (String line : table.split("\n")) {
            String[] parts = line.trim().split("\\s+");
            for (int i = 0; i < columns.length; i++) {
                out.add(Arguments.of(parts[0], columns[i], parts[i + 1].equals("X")));
            }
        }
        return out;
    }

    static List<Arguments> bodyCells() {
        return cells(TABLE_11_1, COLUMNS);
    }

    static List<Arguments> propertyCells() {
        return cells(TABLE_3_5_4, PROPERTY_COLUMNS);
    }

    /** What each row writes. */
    static Object written(String row, String col) {
        switch (row) {
            case "boolean": return true;
            case "byte": return (byte) -100;
            case "short": return (short) 1000;
            case "char": return 'Z';
            case "int": return 100000;
            case "long": return 1L << 40;
            case "float": return 1.5f;
            case "double": return 2.25d;
            case "byte[]": return new byte[] {1, 2};
            default: return stringFor(col);  // a String that parses as the column's type
        }
    }

    static String stringFor(String col) {
        switch (col) {
            case "boolean": return "true";
            case "byte": return "12";
            case "short": return "-1234";
            case "char": return "Q";
            case "int": return "123456";
            case "long": return "12345678901";
            case "float": return "1.5";
            case "double": return "2.5";
            default: return "hello";
        }
    }

    /** What an allowed cell reads: the same value widened, String.valueOf, or parsed. */
    static Object expected(String row, String col) {
        if (row.equals("String")) {
            switch (col) {
                case "boolean": return true;
                case "byte": return (byte) 12;
                case "short": return (short) -1234;
                case "char": return 'Q';
                case "int": return 123456;
                case "long": return 12345678901L;
                case "float": return 1.5f;
                case "double": return 2.5d;
                default: return "hello";
            }
        }
        Object w = written(row, col);
        switch (col) {
            case "String": return String.valueOf(w);  // "true", "-100", "1.5", "2.25"...
            case "short": return ((Number) w).shortValue();
            case "int": return ((Number) w).intValue();
            case "long": return ((Number) w).longValue();
            case "double": return ((Number) w).doubleValue();
            default: return w;
        }
    }

    static Object readStream(AQjmsStreamMessage m, String col) throws JMSException {
        switch (col) {
            case "boolean": return m.readBoolean();
            case "byte": return m.readByte();
            case "short": return m.readShort();
            case "char": return m.readChar();
            case "int": return m.readInt();
            case "long": return m.readLong();
            case "float": return m.readFloat();
            case "double": return m.readDouble();
            case "String": return m.readString();
            default: {
                byte[] buf = new byte[16];
                int n = m.readBytes(buf);
                return java.util.Arrays.copyOf(buf, n);
            }
        }
    }

    static Object getMap(AQjmsMapMessage m, String col) throws JMSException {
        switch (col) {
            case "boolean": return m.getBoolean("k");
            case "byte": return m.getByte("k");
            case "short": return m.getShort("k");
            case "char": return m.getChar("k");
            case "int": return m.getInt("k");
            case "long": return m.getLong("k");
            case "float": return m.getFloat("k");
            case "double": return m.getDouble("k");
            case "String": return m.getString("k");
            default: return m.getBytes("k");
        }
    }

    static Object getProperty(AQjmsMessage m, String col) throws JMSException {
        switch (col) {
            case "boolean": return m.getBooleanProperty("k");
            case "byte": return m.getByteProperty("k");
            case "short": return m.getShortProperty("k");
            case "int": return m.getIntProperty("k");
            case "long": return m.getLongProperty("k");
            case "float": return m.getFloatProperty("k");
            case "double": return m.getDoubleProperty("k");
            default: return m.getStringProperty("k");
        }
    }

    static void assertValue(Object want, Object got) {
        if (want instanceof byte[]) {
            assertArrayEquals((byte[]) want, (byte[]) got);
        } else {
            assertEquals(want, got);
            assertEquals(want.getClass(), got.getClass());
        }
    }

    @ParameterizedTest(name = "{0} read as {1}: {2}")
    @MethodSource("bodyCells")
    void streamMessage(String row, String col, boolean allowed) throws JMSException {
        AQjmsStreamMessage m = new AQjmsStreamMessage();
        Object w = written(row, col);
        m.writeObject(w);
        m.writeString("after");
        m.reset();
        if (allowed) {
            assertValue(expected(row, col), readStream(m, col));
        } else {
            assertThrows(MessageFormatException.class, () -> readStream(m, col));
            // JMS 1.1 StreamMessage: a read that fails does not move on
            assertValue(w, m.readObject());
        }
        assertEquals("after", m.readString());
    }

    @ParameterizedTest(name = "{0} read as {1}: {2}")
    @MethodSource("bodyCells")
    void mapMessage(String row, String col, boolean allowed) throws JMSException {
        AQjmsMapMessage m = new AQjmsMapMessage();
        m.setObject("k", written(row, col));
        if (allowed) {
            assertValue(expected(row, col), getMap(m, col));
        } else {
            assertThrows(MessageFormatException.class, () -> getMap(m, col));
        }
    }

    @ParameterizedTest(name = "{0} read as {1}: {2}")
    @MethodSource("propertyCells")
    void properties(String row, String col, boolean allowed) throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        m.setObjectProperty("k", written(row, col));
        if (allowed) {
            assertValue(expected(row, col), getProperty(m, col));
        } else {
            assertThrows(MessageFormatException.class, () -> getProperty(m, col));
        }
    }
}
