package pgaq.jms;

import javax.jms.Destination;
import javax.jms.JMSException;

/** How the codec turns a stored JMSReplyTo address "owner.name" into a destination: the
 *  receiving session asks the catalog (a Queue, a Topic, or a temporary one). */
interface ReplyToResolver {
    Destination destination(String owner, String name) throws JMSException;
}
