package pgaq.jms;

/** What the catalog says of a destination's queue (aq.resolve_queue). */
final class DestInfo {
    final int queueId;
    final String schema;
    final String name;
    final String queueType;
    final String payloadKind;
    final boolean multipleConsumers;
    /** Its queue table groups messages by transaction (message_grouping TRANSACTIONAL). */
    final boolean grouped;

    DestInfo(int queueId, String schema, String name, String queueType, String payloadKind,
            boolean multipleConsumers, boolean grouped) {
        this.queueId = queueId;
        this.schema = schema;
        this.name = name;
        this.queueType = queueType;
        this.payloadKind = payloadKind;
        this.multipleConsumers = multipleConsumers;
        this.grouped = grouped;
    }

    /** "schema.name" as the SQL procedures take it (parts quoted where they need it). */
    String qualified() {
        return AQjmsDestination.sqlName(schema) + "." + AQjmsDestination.sqlName(name);
    }

    /** The NOTIFY channel its enqueues wake (R__11_wakeups.sql). */
    String channel() {
        return "aq_" + queueId;
    }

    boolean isJms() {
        return payloadKind != null && payloadKind.startsWith("JMS");
    }

    boolean isExceptionQueue() {
        return "EXCEPTION_QUEUE".equals(queueType);
    }
}
