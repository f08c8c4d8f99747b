package pgaq.jms;

/**
 * Oracle's AQjmsDestinationProperty: a queue's or topic's settings for
 * {@link AQjmsSession#createQueue} / {@link AQjmsSession#createTopic} and
 * {@link AQjmsDestination#alter}, as dbms_aqadm.create_queue takes them.
 */
public class AQjmsDestinationProperty {
    public static final int NORMAL_QUEUE = 0;
    public static final int EXCEPTION_QUEUE = 1;
    /** Oracle's INFINITE retention. */
    public static final double INFINITE = -1;

    private int queueType = NORMAL_QUEUE;
    private int maxRetries = 5;
    private double retryInterval;
    private double retentionTime;
    private String comment;

    public AQjmsDestinationProperty() {
    }

    public void setQueueType(int type) {
        queueType = type;
    }

    public int getQueueType() {
        return queueType;
    }

    public void setMaxRetries(int retries) {
        maxRetries = retries;
    }

    public int getMaxRetries() {
        return maxRetries;
    }

    /** The retry delay in seconds. */
    public void setRetryInterval(double seconds) {
        retryInterval = seconds;
    }

    public double getRetryInterval() {
        return retryInterval;
    }

    /** How long processed messages are kept, in seconds (INFINITE: for ever). */
    public void setRetentionTime(double seconds) {
        retentionTime = seconds;
    }

    public double getRetentionTime() {
        return retentionTime;
    }

    public void setComment(String text) {
        comment = text;
    }

    public String getComment() {
        return comment;
    }
}
