package pgaq.jms;

import javax.jms.Queue;

/** A JMS Queue: a single-consumer AQ queue, owner.name. */
public class AQjmsQueue extends AQjmsDestination implements Queue {
    private static final long serialVersionUID = 1L;

    AQjmsQueue(String owner, String name) {
        super(owner, name, false);
    }
}
