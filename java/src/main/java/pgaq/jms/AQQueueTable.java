package pgaq.jms;

import javax.jms.JMSException;
import javax.jms.Session;

/** Oracle's oracle.AQ.AQQueueTable: a handle to a queue table, owner.name. */
public class AQQueueTable {
    private final String owner;
    private final String name;
    private final AQQueueTableProperty property;

    AQQueueTable(String owner, String name, AQQueueTableProperty property) {
        this.owner = owner;
        this.name = name;
        this.property = property;
    }

    public String getOwner() {
        return owner;
    }

    public String getName() {
        return name;
    }

    String qualified() {
        return owner + "." + name;
    }

    public AQQueueTableProperty getProperty() {
        return property;
    }

    /** Drop the queue table; {@code force}: its queues too (stopped and dropped first). */
    public void drop(Session session, boolean force) throws JMSException {
        AQjmsSession.of(session).admin().call(
                "CALL dbms_aqadm.drop_queue_table(queue_table => ?, force => ?)", qualified(), force);
    }

    @Override
    public String toString() {
        return qualified();
    }
}
