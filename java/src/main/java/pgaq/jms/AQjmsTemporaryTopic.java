package pgaq.jms;

import javax.jms.JMSException;
import javax.jms.TemporaryTopic;

/** A temporary topic (JMS 1.1 section 4.4.3): as {@link AQjmsTemporaryQueue}, multi-consumer. */
public class AQjmsTemporaryTopic extends AQjmsTopic implements TemporaryTopic {
    private static final long serialVersionUID = 1L;
    private final transient AQjmsConnection connection;

    AQjmsTemporaryTopic(String owner, String name, AQjmsConnection connection) {
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
                    "JMS-127: only the connection that made a temporary topic deletes it", "JMS-127");
        }
        connection.temporaries().delete(this);
    }
}
