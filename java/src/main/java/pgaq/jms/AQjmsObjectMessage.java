package pgaq.jms;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import javax.jms.JMSException;
import javax.jms.ObjectMessage;

/**
 * One Serializable object, serialized with Java serialization when set (JMS copies it then)
 * and stored as those bytes (sys.aq$_jms_object_message's bytes_raw). getObject deserializes
 * a new copy with the thread's context class loader. Deserializing a message's bytes runs
 * the classes' own readObject code: receive ObjectMessages only from senders you trust.
 */
public class AQjmsObjectMessage extends AQjmsMessage implements ObjectMessage {
    private byte[] data;

    public AQjmsObjectMessage() {
    }

    @Override
    String bodyKind() {
        return "JMS_OBJECT";
    }

    /** The serialized body as stored (null: no object). */
    byte[] serialized() {
        return data == null ? null : data.clone();
    }

    /** The serialized body as received, bypassing the read-only state (the codec). */
    void serialized(byte[] bytes) {
        data = bytes == null ? null : bytes.clone();
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        data = null;
    }

    @Override
    public void setObject(Serializable object) throws JMSException {
        checkBodyWritable();
        if (object == null) {
            data = null;
            return;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(out)) {
            o.writeObject(object);
        } catch (IOException e) {
            throw Errors.format(Errors.FORMAT, "the object cannot be serialized: " + e, e);
        }
        data = out.toByteArray();
    }

    @Override
    public Serializable getObject() throws JMSException {
        if (data == null) {
            return null;
        }
        try (ObjectInputStream in = new ContextObjectInputStream(new ByteArrayInputStream(data))) {
            return (Serializable) in.readObject();
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw Errors.format(Errors.FORMAT, "the body cannot be deserialized: " + e, e);
        }
    }

    /** Classes from the thread's context class loader (an application server's, a web
     *  application's), falling back to the default lookup. */
    private static final class ContextObjectInputStream extends ObjectInputStream {
        ContextObjectInputStream(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc)
                throws IOException, ClassNotFoundException {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            if (loader != null) {
                try {
                    return Class.forName(desc.getName(), false, loader);
                } catch (ClassNotFoundException e) {
                    // fall back below
                }
            }
            return super.resolveClass(desc);
        }
    }
}
