package pgaq.jms;

import javax.jms.JMSException;
import javax.jms.TemporaryQueue;

/** A temporary queue (JMS 1.1 section 4.4.3): made by aq.jms_create_temporary, owned by the
 *  connection that made it, dropped by delete() or when that connection closes. */
public class AQjmsTemporaryQueue extends AQjmsQueue implements TemporaryQueue {
    private static final long serialVersionUID = 1L;
    private final transient AQjmsConnection connection;

    AQjmsTemporaryQueue(String owner, String name, AQjmsConnection connection) {
        super(owner, name);
        this.connection = connection;
    }

    AQjmsConnection connection() {
        return connection;
    }

    @Override
    public void delete() throws JMSException {
        if (connection == null) {
            throw new javax.jms.IllegalStateException(
                    "JMS-127: only the connection that made a temporary queue deletes it", "JMS-127");
        }
        connection.temporaries().delete(this);
    }
}
