package pgaq.jms;

import javax.jms.JMSException;

/** What {@link javax.jms.Message#acknowledge()} calls on a received message: its session's
 *  acknowledge (CLIENT_ACKNOWLEDGE settles every message the session delivered). */
interface Acknowledger {
    void acknowledge() throws JMSException;
}
