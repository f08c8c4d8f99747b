package pgaq.jms;

import javax.jms.Destination;
import javax.jms.JMSException;

/**
 * What a stored reply-to address "owner.name" (an agent with no name) reads back as: the
 * receiving session's Queue, Topic, TemporaryQueue or TemporaryTopic there, as
 * pgaq.jms.codec._reply_to and temporary.settle_reply_to decide it (a temporary one's name
 * says its kind; otherwise a Topic where the catalog has a multi-consumer queue).
 */
interface ReplyToResolver {
    Destination destination(String owner, String name) throws JMSException;
}
