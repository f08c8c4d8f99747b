package pgaq.jms;

import java.io.Serializable;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.jms.JMSException;
import javax.jms.Destination;
import javax.jms.Session;

/**
 * A Queue (a single-consumer AQ queue: {@link AQjmsQueue}) or a Topic (a multi-consumer one:
 * {@link AQjmsTopic}), {@code owner.name} in the database (Oracle Database Advanced Queuing
 * User's Guide, "JMS Destination"). getQueueName/getTopicName give "owner.name", which
 * {@link AQjmsSession#createQueue(String)} takes back. The administrative methods are
 * Oracle's "JMS Destination Methods". Oracle's one class is both a Queue and a Topic; here a
 * queue is not a Topic nor a topic a Queue, so that code asking `instanceof Topic` (JMS
 * programs, Spring) learns which it has. A part of the name that is not a lower-case
 * identifier is double-quoted in "owner.name" (public."test-queue"), as the SQL procedures
 * read names.
 */
public abstract class AQjmsDestination implements Destination, Serializable {
    private static final long serialVersionUID = 1L;
    /** A name part the SQL procedures read as it is (unquoted parts fold to lower case). */
    private static final Pattern PLAIN = Pattern.compile("[a-z_][a-z0-9_$#]*");
    private final String owner;
    private final String name;
    private final boolean topic;

    /** A Queue or a Topic of this provider; owner and name as the catalog has them. */
    static AQjmsDestination of(String owner, String name, boolean topic) {
        return topic ? new AQjmsTopic(owner, name) : new AQjmsQueue(owner, name);
    }

    /** owner and name as the catalog has them (not SQL text: no quotes, case kept). */
    AQjmsDestination(String owner, String name, boolean topic) {
        this.owner = owner;
        this.name = name;
        this.topic = topic;
    }

    static AQjmsDestination parse(String qualified, boolean topic) throws JMSException {
        int dot = qualified == null ? -1 : qualified.indexOf('.');
        if (dot <= 0 || dot == qualified.length() - 1 || qualified.indexOf('.', dot + 1) >= 0) {
            throw new javax.jms.InvalidDestinationException(
                    "JMS-178: invalid destination " + qualified + ": expected owner.name", "JMS-178");
        }
        return of(qualified.substring(0, dot), qualified.substring(dot + 1), topic);
    }

    /** "owner.name": what the SQL procedures take. */
    public String getCompleteName() {
        return sqlName(owner) + "." + sqlName(name);
    }

    /** A catalog name as SQL text: as it is when unquoted text reads back the same, else in
     *  double quotes ("test-queue", "Orders"). */
    static String sqlName(String part) {
        return PLAIN.matcher(part).matches() ? part : '"' + part.replace("\"", "\"\"") + '"';
    }

    /** A part of a name as SQL text, as the catalog has it: a quoted part without its
     *  quotes, an unquoted one in lower case. */
    static String catalogName(String sql) {
        if (sql.length() >= 2 && sql.startsWith("\"") && sql.endsWith("\"")) {
            return sql.substring(1, sql.length() - 1).replace("\"\"", "\"");
        }
        return sql.toLowerCase(Locale.ROOT);
    }

    public String getQueueOwner() {
        return owner;
    }

    public String getTopicOwner() {
        return owner;
    }

    /** javax.jms's name, which JMS programs pass back to Session.createQueue / createTopic:
     *  the complete name, so that it names the same queue. */
    public String getQueueName() {
        return getCompleteName();
    }

    public String getTopicName() {
        return getCompleteName();
    }

    public boolean isTopic() {
        return topic;
    }

    // -- Oracle's administrative methods ("JMS Destination Methods") ------------------------
    /** Start the queue for enqueue and/or dequeue (a topic: publish and/or subscribe). */
    public void start(Session session, boolean enqueue, boolean dequeue) throws JMSException {
        AQjmsSession.of(session).admin().call("CALL dbms_aqadm.start_queue(queue_name => ?, enqueue => ?, dequeue => ?)",
                getCompleteName(), enqueue, dequeue);
    }

    /** Stop the queue for enqueue and/or dequeue; {@code wait}: until current transactions end. */
    public void stop(Session session, boolean enqueue, boolean dequeue, boolean wait) throws JMSException {
        AQjmsSession.of(session).admin().call(
                "CALL dbms_aqadm.stop_queue(queue_name => ?, enqueue => ?, dequeue => ?, wait => ?)",
                getCompleteName(), enqueue, dequeue, wait);
    }

    /** Drop the queue (it must be stopped). */
    public void drop(Session session) throws JMSException {
        AQjmsSession.of(session).admin().call("CALL dbms_aqadm.drop_queue(queue_name => ?)", getCompleteName());
    }

    /** Change its retries, retry delay, retention time and comment (AQjmsDestinationProperty). */
    public void alter(Session session, AQjmsDestinationProperty property) throws JMSException {
        AQjmsSession.of(session).admin().alterQueue(getCompleteName(), property);
    }

    /** Propagate to {@code destination} (a database link, NULL: this database) as
     *  dbms_aqadm.schedule_propagation does; times in seconds, NULL: the defaults. */
    public void schedulePropagation(Session session, String destination, java.util.Date startTime,
            Double duration, String nextTime, Double latency) throws JMSException {
        AQjmsSession.of(session).admin().schedulePropagation(getCompleteName(), destination, startTime,
                duration, nextTime, latency);
    }

    public void unschedulePropagation(Session session, String destination) throws JMSException {
        AQjmsSession.of(session).admin().call(
                "CALL dbms_aqadm.unschedule_propagation(queue_name => ?, destination => ?)",
                getCompleteName(), destination);
    }

    public void enablePropagationSchedule(Session session, String destination) throws JMSException {
        AQjmsSession.of(session).admin().call(
                "CALL dbms_aqadm.enable_propagation_schedule(queue_name => ?, destination => ?)",
                getCompleteName(), destination);
    }

    public void disablePropagationSchedule(Session session, String destination) throws JMSException {
        AQjmsSession.of(session).admin().call(
                "CALL dbms_aqadm.disable_propagation_schedule(queue_name => ?, destination => ?)",
                getCompleteName(), destination);
    }

    String key() {
        return getCompleteName().toLowerCase(Locale.ROOT);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AQjmsDestination)) {
            return false;
        }
        AQjmsDestination d = (AQjmsDestination) o;
        return d.topic == topic && d.key().equals(key()) && d.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return key().hashCode() * 31 + (topic ? 1 : 0);
    }

    @Override
    public String toString() {
        return getCompleteName();
    }
}
