package pgaq.jms;

/**
 * One row of {@code aq.dequeue_array} (the SQL type {@code aq.dequeued}), as the session read
 * it: what {@link PayloadCodec#decode} turns into a JMS message. Plain fields, no behaviour.
 */
final class Dequeued {
    /** AQ's message id in upper-case hex (JMSMessageID is "ID:" + this). */
    String msgid;
    /** The queue as "schema.name". */
    String queueName;
    String consumerName;
    String correlation;
    int priority;
    int delay;
    /** Seconds after READY; null: never. */
    Integer expiration;
    /** The enqueue time in microseconds since the epoch. */
    long enqueueMicros;
    String state;
    int attempts;
    String exceptionQueue;
    String senderName;
    String senderAddress;
    int senderProtocol;
    /** Upper-case hex, or null when the message was not propagated. */
    String originalMsgid;
    /** The payload as jsonb's text (JSON and JMS payload kinds), else null. */
    String payloadJson;
    /** The payload of a RAW queue, else null. */
    byte[] payloadRaw;
    /** Whether it came from the queue table's buffered companion (NON_PERSISTENT). */
    boolean buffered;
    /** Where NEXT_MESSAGE navigation goes on from after this message (a browser's cursor). */
    Object[] position;
    /** Its transaction group on a grouped queue table, else null. */
    Long group;
}
