package pgaq.jms;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.jms.JMSException;
import javax.jms.MessageFormatException;

/**
 * A message's properties (JMS 1.1 3.5) in the order they were set, as pgaq.jms.message keeps
 * them: the names a client may use, the JMSX and JMS_Oracle properties and who may set them
 * (Oracle Database Advanced Queuing User's Guide, "JMS Message Properties" and "Using Message
 * Properties with Different Message Types"), and read-only after receipt.
 */
final class PropertyTable {
    /** A JMSX or JMS_Oracle property: its type, and whether a client sets it on a
     *  Text/Bytes/Map/Stream/Object message and on an AdtMessage. */
    static final class Special {
        final Kind kind;
        final boolean settable;
        final boolean settableOnAdt;

        Special(Kind kind, boolean settable, boolean settableOnAdt) {
            this.kind = kind;
            this.settable = settable;
            this.settableOnAdt = settableOnAdt;
        }
    }

    static final Map<String, Special> SPECIAL;
    /** Oracle's guide spells some of them two ways: the other spelling -> the name. */
    static final Map<String, String> ALIASES;
    /** The selector's words, which no property may be named (JMS 1.1 3.8.1.1). */
    static final Set<String> RESERVED = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
            "NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE")));
    /** The producer's time to live in ms where AQ's whole seconds lose it (codec.py's
     *  TIME_TO_LIVE_PROPERTY): stored, never shown to a client, never set by one. */
    static final String TIME_TO_LIVE = "JMS_OracleTimeToLive";

    static {
        Map<String, Special> s = new HashMap<>();
        s.put("JMSXUserID", new Special(Kind.STRING, false, false));
        s.put("JMSXAppID", new Special(Kind.STRING, true, false));
        s.put("JMSXDeliveryCount", new Special(Kind.INT, false, false));
        s.put("JMSXGroupID", new Special(Kind.STRING, true, false));
        s.put("JMSXGroupSeq", new Special(Kind.INT, true, false));
        s.put("JMSXRcvTimestamp", new Special(Kind.LONG, false, false));
        s.put("JMSXState", new Special(Kind.INT, false, false));
        s.put("JMS_OracleExcpQ", new Special(Kind.STRING, true, true));
        s.put("JMS_OracleDelay", new Special(Kind.INT, true, true));
        s.put("JMS_OracleOriginalMessageID", new Special(Kind.STRING, false, false));
        SPECIAL = Collections.unmodifiableMap(s);
        Map<String, String> a = new HashMap<>();
        a.put("JMSXGroupid", "JMSXGroupID");
        a.put("JMSXuserID", "JMSXUserID");
        a.put("JMSXRcvTimeStamp", "JMSXRcvTimestamp");
        a.put("JMSXRecvTimeStamp", "JMSXRcvTimestamp");
        a.put("JMSXRecvTimestamp", "JMSXRcvTimestamp");
        a.put("JMS_OracleOriginalMessageId", "JMS_OracleOriginalMessageID");
        ALIASES = Collections.unmodifiableMap(a);
    }

    private final Map<String, Typed> values = new LinkedHashMap<>();
    boolean readOnly;

    static String canonical(String name) {
        String c = ALIASES.get(name);
        return c == null ? name : c;
    }

    /** The canonical form of a name a client may use; IllegalArgumentException when it is
     *  null, empty, not a Java identifier or a selector word. */
    static String checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("JMS-139: a property name must be a non-empty string");
        }
        boolean ok = Character.isJavaIdentifierStart(name.codePointAt(0));
        for (int i = 0; ok && i < name.length(); i += Character.charCount(name.codePointAt(i))) {
            int c = name.codePointAt(i);
            // identifier-ignorable characters (U+0000...) are no part of a name one can select on
            ok = Character.isJavaIdentifierPart(c) && !Character.isIdentifierIgnorable(c);
        }
        if (!ok) {
            throw new IllegalArgumentException("JMS-119: property name '" + abbreviate(name)
                    + "' is not a Java identifier");
        }
        if (RESERVED.contains(name.toUpperCase(Locale.ROOT))) {
            throw new IllegalArgumentException("JMS-119: property name '" + name
                    + "' is a selector keyword");
        }
        return canonical(name);
    }

    /** A name the application owns: not JMS*, except other providers' JMS_vendor_ ones. */
    static boolean isUserProperty(String name) {
        return !name.startsWith("JMS")
                || name.startsWith("JMS_") && !name.startsWith("JMS_Oracle");
    }

    static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }

    /** Set as a client does: the checks of pgaq.jms.message.Message._settable, then a
     *  JMSX/JMS_Oracle property converted to its own type. */
    void set(String name, Typed t, boolean adt) throws JMSException {
        String canon = checkName(name);
        if (readOnly) {
            throw Errors.notWriteable("JMS-163", "the properties of a received message are "
                    + "read-only until clearProperties()");
        }
        Special special = SPECIAL.get(canon);
        if (special != null) {
            if (!(adt ? special.settableOnAdt : special.settable)) {
                throw Errors.notWriteable("JMS-110", "Property " + canon + " not writeable");
            }
            t = coerce(t, special.kind);
        } else if (!isUserProperty(canon)) {
            throw new IllegalArgumentException("JMS-150: '" + canon + "': names starting with JMS "
                    + "are JMS's and Oracle's (not a property a client sets)");
        } else if (adt) {
            throw new AQjmsException("JMS-150", "an AdtMessage carries no user properties ('"
                    + canon + "'): only JMS_OracleExcpQ and JMS_OracleDelay");
        }
        values.remove(canon);  // a set moves the property to the end, as IDAP's seq does
        values.put(canon, t);
    }

    private static Typed coerce(Typed t, Kind target) throws MessageFormatException {
        if (t.kind == target) {
            return t;
        }
        if (t.kind.isInteger() && target.isInteger()) {
            long n = ((Number) t.value).longValue();
            if (target == Kind.INT && n != (int) n) {
                throw Errors.format(Errors.CONVERSION, n + " is out of range for int");
            }
            return new Typed(target, target == Kind.INT ? (Object) (int) n : (Object) n);
        }
        return new Typed(target, Values.convert(t, target, true));
    }

    /** Set as the provider does, with no checks (the codec's JMSXDeliveryCount...). */
    void provider(String name, Typed t) {
        values.put(name, t);
    }

    Typed get(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("JMS-139: a property name must be a non-empty string");
        }
        return values.get(canonical(name));
    }

    Object read(String name, Kind target) throws MessageFormatException {
        Typed t = get(name);
        return Values.convert(t == null ? Typed.NULL_STRING : t, target, true);
    }

    Typed remove(String name) {
        return values.remove(name);
    }

    /** The properties in the order set (a live view: the codec's). */
    Map<String, Typed> entries() {
        return values;
    }

    void clear() {
        values.clear();
        readOnly = false;
    }
}
