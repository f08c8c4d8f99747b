package pgaq.jms;

import javax.jms.Topic;

/** A JMS Topic: a multi-consumer AQ queue, owner.name. */
public class AQjmsTopic extends AQjmsDestination implements Topic {
    private static final long serialVersionUID = 1L;

    AQjmsTopic(String owner, String name) {
        super(owner, name, true);
    }
}
