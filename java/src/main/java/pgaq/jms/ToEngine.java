package pgaq.jms;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import javax.jms.Queue;
import javax.jms.Topic;

/**
 * A message to what aq.enqueue_array stores, exactly as pgaq.jms.codec.to_engine makes it
 * (that module's docstring is the table): the payload of the queue table's kind, with the
 * header fields AQ has no column for in its "header", and the AQ message properties.
 */
final class ToEngine {
    /** AQ$_JMS_MESSAGE's message_type of each body (Oracle's DBMS_AQ JMS constants). */
    static final Map<String, Integer> GENERIC_TYPE;
    static final List<String> JMS_KINDS = Collections.unmodifiableList(Arrays.asList(
            "JMS_TEXT", "JMS_BYTES", "JMS_MAP", "JMS_STREAM", "JMS_OBJECT", "JMS_MESSAGE"));

    static {
        Map<String, Integer> g = new LinkedHashMap<>();
        g.put("JMS_TEXT", 0);
        g.put("JMS_BYTES", 1);
        g.put("JMS_STREAM", 2);
        g.put("JMS_MAP", 3);
        g.put("JMS_OBJECT", 4);
        GENERIC_TYPE = Collections.unmodifiableMap(g);
    }

    private ToEngine() {
    }

    /** Whether a queue table of this kind holds the message: each JMS kind its own body (a
     *  header-only message any, as an empty body), JMS_MESSAGE every JMS body, OBJECT an
     *  AdtMessage, RAW a BytesMessage (its body alone). */
    static boolean accepts(String kind, AQjmsMessage m) {
        if (m instanceof AQjmsAdtMessage) {
            return kind.equals("OBJECT");
        }
        if (kind.equals("JMS_MESSAGE")) {
            return true;
        }
        if (kind.equals("RAW")) {
            return m instanceof AQjmsBytesMessage;
        }
        return JMS_KINDS.contains(kind) && (m.bodyKind() == null || kind.equals(m.bodyKind()));
    }

    static Outgoing encode(AQjmsMessage m, String payloadKind, int aqPriority, long timeToLive,
            boolean persistent, AQjmsAgent sender, AQjmsAgent[] recipients) throws JMSException {
        String kind = payloadKind.toUpperCase(Locale.ROOT);
        if (!accepts(kind, m)) {
            throw new MessageFormatException("JMS-108: Messages of type "
                    + m.getClass().getSimpleName() + " not allowed with Destinations containing "
                    + "payload of type " + payloadKind, "JMS-108");
        }
        Long ttl = timeToLive > 0 ? timeToLive : null;
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("priority", aqPriority);
        Typed delay = m.properties.get("JMS_OracleDelay");
        props.put("delay", delay == null || delay.value == null ? 0
                : ((Number) delay.value).intValue());
        if (ttl != null) {
            props.put("expiration", ttl / 1000 + (ttl % 1000 == 0 ? 0 : 1));
        }
        String correlation = m.getJMSCorrelationID();
        if (correlation != null) {
            props.put("correlation", correlation);
        }
        if (sender != null) {
            props.put("sender_id", agent(sender));
            String name = sender.getName() == null ? "" : strip(sender.getName());
            props.put("sender_name", name.isEmpty() ? null : name);
            props.put("sender_address", sender.getAddress());
            props.put("sender_protocol", sender.getProtocol());
        }
        if (recipients != null && recipients.length > 0) {
            List<Object> list = new ArrayList<>();
            for (AQjmsAgent a : recipients) {
                list.add(agent(a));
            }
            props.put("recipient_list", list);
        }
        Object excq = special(m, "JMS_OracleExcpQ");
        if (excq != null && !excq.toString().isEmpty()) {
            props.put("exception_queue", excq);
        }
        props.put("delivery_mode", persistent ? "PERSISTENT" : "BUFFERED");

        Outgoing out = new Outgoing();
        Object payload;
        if (kind.equals("OBJECT")) {
            Map<String, Object> adt = ((AQjmsAdtMessage) m).getAdtPayload();
            if (adt == null) {
                throw Errors.format("JMS-104", "an AdtMessage needs a payload");
            }
            payload = AdtJson.check(adt);
        } else if (kind.equals("RAW")) {
            List<String> carried = new ArrayList<>();
            for (String n : m.properties.entries().keySet()) {
                if (!n.equals("JMS_OracleDelay") && !n.equals("JMS_OracleExcpQ")) {
                    carried.add(n);
                }
            }
            if (!carried.isEmpty() || m.getJMSType() != null || m.getJMSReplyTo() != null) {
                throw Errors.format("JMS-193", "a RAW queue holds the body alone: no JMSType, "
                        + "JMSReplyTo or properties (" + (carried.isEmpty() ? "header fields"
                        : String.join(", ", carried)) + ")");
            }
            payload = null;
            out.raw = new byte[][] {((AQjmsBytesMessage) m).body()};
        } else {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("header", header(m, ttl));
            if (kind.equals("JMS_MESSAGE")) {
                p.putAll(generic(m));
            } else {
                p.putAll(body(m, kind));
            }
            payload = p;
        }
        checkStorable(payload, correlation, excq == null ? null : excq.toString());
        out.properties = Json.write(Collections.singletonList(props));
        out.payloads = payload == null ? null : Json.write(Collections.singletonList(payload));
        return out;
    }

    /** Python's str.strip(" "): spaces only. */
    private static String strip(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && s.charAt(a) == ' ') {
            a++;
        }
        while (b > a && s.charAt(b - 1) == ' ') {
            b--;
        }
        return s.substring(a, b);
    }

    static Map<String, Object> agent(AQjmsAgent a) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", a.getName());
        out.put("address", a.getAddress());
        out.put("protocol", a.getProtocol());
        return out;
    }

    /** JMSReplyTo as sys.aq$_agent: a Queue or Topic is an address alone, "owner.name". */
    private static Map<String, Object> replyTo(Destination d) throws JMSException {
        if (d == null) {
            return null;
        }
        if (d instanceof AQjmsAgent) {
            return agent((AQjmsAgent) d);
        }
        String address;
        if (d instanceof Queue) {
            address = ((Queue) d).getQueueName();
        } else if (d instanceof Topic) {
            address = ((Topic) d).getTopicName();
        } else {
            throw new AQjmsException("JMS-147", "JMSReplyTo is a Queue, a Topic or an "
                    + "AQjmsAgent, not " + d.getClass().getName());
        }
        return agent(new AQjmsAgent(null, address, 0));
    }

    private static Object special(AQjmsMessage m, String name) {
        Typed t = m.properties.get(name);
        return t == null ? null : t.value;
    }

    private static Map<String, Object> header(AQjmsMessage m, Long ttl) throws JMSException {
        Map<String, Object> props = new LinkedHashMap<>();
        int seq = 0;
        for (Map.Entry<String, Typed> e : m.properties.entries().entrySet()) {
            String name = e.getKey();
            if (PropertyTable.SPECIAL.containsKey(name) || name.equals(PropertyTable.TIME_TO_LIVE)) {
                continue;
            }
            seq++;
            props.put(name, typed(e.getValue(), seq));
        }
        if (ttl != null && ttl % 1000 != 0) {  // whole seconds: AQ's expiration says it all
            props.put(PropertyTable.TIME_TO_LIVE, typed(new Typed(Kind.LONG, ttl), seq + 1));
        }
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("replyto", replyTo(m.getJMSReplyTo()));
        h.put("type", m.getJMSType());
        h.put("userid", null);  // the database sets it (R__52)
        h.put("appid", special(m, "JMSXAppID"));
        h.put("groupid", special(m, "JMSXGroupID"));
        h.put("groupseq", special(m, "JMSXGroupSeq"));
        h.put("properties", props);
        return h;
    }

    private static Map<String, Object> typed(Typed t, int seq) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", t.kind.json);
        out.put("value", ValueJson.toJson(t));
        if (seq > 0) {
            out.put("seq", seq);
        }
        return out;
    }

    private static String raw(byte[] data) {
        return data == null ? null : "\\x" + Wire.hex(data, false);
    }

    /** The body's fields of the sys.aq$_jms_* type of {@code kind}. */
    private static Map<String, Object> body(AQjmsMessage m, String kind) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (kind.equals("JMS_TEXT")) {
            String text = m instanceof AQjmsTextMessage ? ((AQjmsTextMessage) m).getText() : null;
            // characters as PostgreSQL's length() and Python's len() count them (not UTF-16)
            out.put("text_len", text == null ? 0 : text.codePointCount(0, text.length()));
            out.put("text_vc", text);
            return out;
        }
        if (kind.equals("JMS_MAP")) {
            Map<String, Object> items = new LinkedHashMap<>();
            if (m instanceof AQjmsMapMessage) {
                for (Map.Entry<String, Typed> e : ((AQjmsMapMessage) m).items().entrySet()) {
                    items.put(e.getKey(), typed(e.getValue(), 0));
                }
            }
            out.put("map", items);
            return out;
        }
        byte[] data;
        if (m instanceof AQjmsBytesMessage) {
            data = ((AQjmsBytesMessage) m).body();
        } else if (m instanceof AQjmsStreamMessage) {
            data = Wire.encodeStream(((AQjmsStreamMessage) m).items());
        } else if (m instanceof AQjmsObjectMessage) {
            data = ((AQjmsObjectMessage) m).serialized();
        } else {
            data = kind.equals("JMS_BYTES") || kind.equals("JMS_STREAM") ? new byte[0] : null;
        }
        out.put("bytes_len", data == null ? 0 : data.length);
        out.put("bytes_raw", raw(data));
        return out;
    }

    /** The AQ$_JMS_MESSAGE layout: one type for every body, message_type saying which. */
    private static Map<String, Object> generic(AQjmsMessage m) {
        String kind = m.bodyKind() != null && GENERIC_TYPE.containsKey(m.bodyKind())
                ? m.bodyKind() : "JMS_TEXT";
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("message_type", GENERIC_TYPE.get(kind));
        out.put("text_len", 0);
        out.put("text_vc", null);
        out.put("bytes_len", 0);
        out.put("bytes_raw", null);
        out.put("map", null);
        out.putAll(body(m, kind));
        return out;
    }

    /** PostgreSQL's text and jsonb hold neither U+0000 nor a lone UTF-16 surrogate (a Java
     *  String may): refuse such a message before anything is sent. Stream and Bytes bodies
     *  are bytes, so they may carry both. */
    private static void checkStorable(Object payload, String correlation, String excq)
            throws MessageFormatException {
        List<String> texts = new ArrayList<>();
        Deque<Object> stack = new ArrayDeque<>();
        if (payload != null) {
            stack.push(payload);
        }
        while (!stack.isEmpty()) {
            Object v = stack.pop();
            if (v instanceof String) {
                texts.add((String) v);
            } else if (v instanceof Map) {
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    texts.add(String.valueOf(e.getKey()));
                    if (e.getValue() != null) {
                        stack.push(e.getValue());
                    }
                }
            } else if (v instanceof List) {
                for (Object item : (List<?>) v) {
                    if (item != null) {
                        stack.push(item);
                    }
                }
            }
        }
        texts.add(correlation == null ? "" : correlation);
        texts.add(excq == null ? "" : excq);
        for (String text : texts) {
            if (!storable(text)) {
                throw Errors.format(Errors.FORMAT, "'" + PropertyTable.abbreviate(text)
                        + "': a string of the message (text, property, map item, JMSType, "
                        + "correlation) holds U+0000 or a lone surrogate, which the database "
                        + "cannot store");
            }
        }
    }

    static boolean storable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }
}
