package pgaq.jms;

/**
 * Oracle's oracle.AQ.AQQueueTableProperty: what {@link AQjmsSession#createQueueTable} makes,
 * as dbms_aqadm.create_queue_table takes it. The payload type is a JMS type
 * ("SYS.AQ$_JMS_TEXT_MESSAGE", ..., "SYS.AQ$_JMS_MESSAGE"), an object type, or "RAW".
 */
public class AQQueueTableProperty {
    /** Message grouping (Oracle's constants). */
    public static final int NONE = 0;
    public static final int TRANSACTIONAL = 1;

    private final String payloadType;
    private boolean multiConsumer;
    private int messageGrouping = NONE;
    private String sortOrder;
    private String comment;
    private String compatible;
    private String storageClause;
    private int primaryInstance;
    private int secondaryInstance;

    public AQQueueTableProperty(String payloadType) {
        this.payloadType = payloadType;
    }

    public String getPayloadType() {
        return payloadType;
    }

    public void setMultiConsumer(boolean multi) {
        multiConsumer = multi;
    }

    public boolean isMulticonsumerEnabled() {
        return multiConsumer;
    }

    public void setMessageGrouping(int grouping) {
        messageGrouping = grouping;
    }

    public int getMessageGrouping() {
        return messageGrouping;
    }

    /** Oracle's sort_list: "priority,enq_time", "enq_time", ... */
    public void setSortOrder(String order) {
        sortOrder = order;
    }

    public String getSortOrder() {
        return sortOrder;
    }

    public void setComment(String text) {
        comment = text;
    }

    public String getComment() {
        return comment;
    }

    public void setCompatible(String value) {
        compatible = value;
    }

    public String getCompatible() {
        return compatible;
    }

    public void setStorageClause(String clause) {
        storageClause = clause;
    }

    public String getStorageClause() {
        return storageClause;
    }

    public void setPrimaryInstance(int instance) {
        primaryInstance = instance;
    }

    public int getPrimaryInstance() {
        return primaryInstance;
    }

    public void setSecondaryInstance(int instance) {
        secondaryInstance = instance;
    }

    public int getSecondaryInstance() {
        return secondaryInstance;
    }
}
