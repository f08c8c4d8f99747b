package pgaq.jms;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.jms.JMSException;
import javax.jms.MapMessage;

/**
 * Named typed values (sys.aq$_jms_map_message's map), read with the conversions of Oracle
 * Database Advanced Queuing User's Guide, "JMS Message Bodies" (Table 11-2). A missing name
 * reads as null: false, null, or a NumberFormatException for a number.
 */
public class AQjmsMapMessage extends AQjmsMessage implements MapMessage {
    private Map<String, Typed> map = new LinkedHashMap<>();

    public AQjmsMapMessage() {
    }

    @Override
    String bodyKind() {
        return "JMS_MAP";
    }

    Map<String, Typed> items() {
        return map;
    }

    /** The items as received, bypassing the read-only state (the codec). */
    void items(Map<String, Typed> received) {
        map = new LinkedHashMap<>(received);
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        map = new LinkedHashMap<>();
    }

    private static String name(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a map item name must be a non-empty string");
        }
        return name;
    }

    private void set(String name, Kind kind, Object value) throws JMSException {
        checkBodyWritable();
        map.put(name(name), value == null
                ? (kind == Kind.BYTES ? Typed.NULL_BYTES : Typed.NULL_STRING)
                : new Typed(kind, value));
    }

    private Object get(String name, Kind target) throws JMSException {
        Typed t = map.get(name(name));
        if (t == null) {
            if (target == Kind.BYTES) {
                return null;  // getBytes of a missing name: null
            }
            t = Typed.NULL_STRING;
        }
        return Values.convert(t, target, false);
    }

    @Override
    public void setBoolean(String name, boolean value) throws JMSException {
        set(name, Kind.BOOLEAN, value);
    }

    @Override
    public void setByte(String name, byte value) throws JMSException {
        set(name, Kind.BYTE, value);
    }

    @Override
    public void setShort(String name, short value) throws JMSException {
        set(name, Kind.SHORT, value);
    }

    @Override
    public void setChar(String name, char value) throws JMSException {
        set(name, Kind.CHAR, value);
    }

    @Override
    public void setInt(String name, int value) throws JMSException {
        set(name, Kind.INT, value);
    }

    @Override
    public void setLong(String name, long value) throws JMSException {
        set(name, Kind.LONG, value);
    }

    @Override
    public void setFloat(String name, float value) throws JMSException {
        set(name, Kind.FLOAT, value);
    }

    @Override
    public void setDouble(String name, double value) throws JMSException {
        set(name, Kind.DOUBLE, value);
    }

    @Override
    public void setString(String name, String value) throws JMSException {
        set(name, Kind.STRING, value);
    }

    /** A copy of value; null sets a null byte[] item. */
    @Override
    public void setBytes(String name, byte[] value) throws JMSException {
        set(name, Kind.BYTES, value == null ? null : value.clone());
    }

    @Override
    public void setBytes(String name, byte[] value, int offset, int length) throws JMSException {
        if (offset < 0 || length < 0 || offset + length > value.length) {
            throw new IndexOutOfBoundsException("offset " + offset + " and length " + length
                    + " outside the " + value.length + " bytes");
        }
        set(name, Kind.BYTES, Arrays.copyOfRange(value, offset, offset + length));
    }

    /** A boxed primitive, String or byte[] as its own type; MessageFormatException for null
     *  or any other object. */
    @Override
    public void setObject(String name, Object value) throws JMSException {
        Typed t = Values.typedObject(value);
        set(name, t.kind, t.value);
    }

    @Override
    public boolean getBoolean(String name) throws JMSException {
        return (Boolean) get(name, Kind.BOOLEAN);
    }

    @Override
    public byte getByte(String name) throws JMSException {
        return (Byte) get(name, Kind.BYTE);
    }

    @Override
    public short getShort(String name) throws JMSException {
        return (Short) get(name, Kind.SHORT);
    }

    @Override
    public char getChar(String name) throws JMSException {
        return (Character) get(name, Kind.CHAR);
    }

    @Override
    public int getInt(String name) throws JMSException {
        return (Integer) get(name, Kind.INT);
    }

    @Override
    public long getLong(String name) throws JMSException {
        return (Long) get(name, Kind.LONG);
    }

    @Override
    public float getFloat(String name) throws JMSException {
        return (Float) get(name, Kind.FLOAT);
    }

    @Override
    public double getDouble(String name) throws JMSException {
        return (Double) get(name, Kind.DOUBLE);
    }

    @Override
    public String getString(String name) throws JMSException {
        return (String) get(name, Kind.STRING);
    }

    @Override
    public byte[] getBytes(String name) throws JMSException {
        return (byte[]) get(name, Kind.BYTES);
    }

    /** The item as set (a boxed primitive, String, a copy of a byte[]); null when missing. */
    @Override
    public Object getObject(String name) throws JMSException {
        Typed t = map.get(name(name));
        return t == null ? null : t.exported();
    }

    @Override
    public Enumeration<?> getMapNames() {
        return Collections.enumeration(new ArrayList<>(map.keySet()));
    }

    @Override
    public boolean itemExists(String name) {
        return name != null && map.containsKey(name);
    }
}
