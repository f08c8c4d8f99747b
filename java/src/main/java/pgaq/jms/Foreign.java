package pgaq.jms;

import java.io.ByteArrayOutputStream;
import java.util.Enumeration;
import javax.jms.BytesMessage;
import javax.jms.JMSException;
import javax.jms.MapMessage;
import javax.jms.Message;
import javax.jms.MessageEOFException;
import javax.jms.ObjectMessage;
import javax.jms.StreamMessage;
import javax.jms.TextMessage;

/**
 * A message of another provider's implementation, read through the javax.jms interfaces
 * into one of ours (JMS 1.1 4.4.5, "Optimized Message Implementations": a provider must
 * handle messages whose implementation is not its own). Its JMSX and JMS_Oracle properties
 * that a client may not set (a received message's JMSXDeliveryCount...) are left out; a
 * Bytes or Stream body is reset() to be read, as other providers do.
 */
final class Foreign {
    private Foreign() {
    }

    static AQjmsMessage adopt(Message f) throws JMSException {
        AQjmsMessage m = body(f);
        m.setJMSCorrelationID(f.getJMSCorrelationID());
        m.setJMSType(f.getJMSType());
        m.setJMSReplyTo(f.getJMSReplyTo());
        for (Enumeration<?> e = f.getPropertyNames(); e.hasMoreElements();) {
            String name = String.valueOf(e.nextElement());
            String canon = PropertyTable.canonical(name);
            PropertyTable.Special special = PropertyTable.SPECIAL.get(canon);
            if (special != null ? !special.settable : !PropertyTable.isUserProperty(canon)) {
                continue;
            }
            try {
                m.setObjectProperty(canon, f.getObjectProperty(name));
            } catch (IllegalArgumentException bad) {  // a name the other provider let through
                throw Errors.format("JMS-119", bad.getMessage(), bad);
            }
        }
        return m;
    }

    private static AQjmsMessage body(Message f) throws JMSException {
        if (f instanceof TextMessage) {
            AQjmsTextMessage m = new AQjmsTextMessage();
            m.setText(((TextMessage) f).getText());
            return m;
        }
        if (f instanceof BytesMessage) {
            BytesMessage b = (BytesMessage) f;
            b.reset();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[8192];
            for (int n; (n = b.readBytes(chunk)) > 0;) {
                out.write(chunk, 0, n);
            }
            AQjmsBytesMessage m = new AQjmsBytesMessage();
            m.writeBytes(out.toByteArray());
            return m;
        }
        if (f instanceof MapMessage) {
            MapMessage map = (MapMessage) f;
            AQjmsMapMessage m = new AQjmsMapMessage();
            for (Enumeration<?> e = map.getMapNames(); e.hasMoreElements();) {
                String name = String.valueOf(e.nextElement());
                Object v = map.getObject(name);
                if (v == null) {
                    m.setString(name, null);
                } else {
                    m.setObject(name, v);
                }
            }
            return m;
        }
        if (f instanceof StreamMessage) {
            StreamMessage s = (StreamMessage) f;
            s.reset();
            AQjmsStreamMessage m = new AQjmsStreamMessage();
            while (true) {
                Object v;
                try {
                    v = s.readObject();
                } catch (MessageEOFException end) {
                    break;
                }
                m.writeObject(v);
            }
            return m;
        }
        if (f instanceof ObjectMessage) {
            AQjmsObjectMessage m = new AQjmsObjectMessage();
            m.setObject(((ObjectMessage) f).getObject());
            return m;
        }
        return new AQjmsMessage();
    }
}
