package pgaq.jms;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.sql.Types;
import javax.jms.JMSException;

/**
 * Oracle's administrative extensions of AQjmsSession and AQjmsDestination, each a call of
 * the dbms_aqadm procedure any client runs, committed at once (as dbms_aqadm's auto_commit).
 */
final class Admin {
    private final AQjmsSession session;

    Admin(AQjmsSession session) {
        this.session = session;
    }

    /** One statement, its arguments bound (never spliced into the SQL). */
    void call(String sql, Object... args) throws JMSException {
        session.db().run(c -> {
            try (PreparedStatement st = c.prepareStatement(sql)) {
                for (int i = 0; i < args.length; i++) {
                    Object a = args[i];
                    if (a == null) {
                        st.setNull(i + 1, Types.VARCHAR);
                    } else {
                        st.setObject(i + 1, a);
                    }
                }
                st.execute();
            }
            return null;
        });
    }

    AQQueueTable createQueueTable(String owner, String name, AQQueueTableProperty p) throws JMSException {
        call("CALL dbms_aqadm.create_queue_table(queue_table => ?, queue_payload_type => ?, "
                + "storage_clause => ?, sort_list => ?, multiple_consumers => ?, message_grouping => ?, "
                + "comment => ?, primary_instance => ?, secondary_instance => ?, compatible => ?)",
                owner + "." + name, p.getPayloadType(), p.getStorageClause(), p.getSortOrder(),
                p.isMulticonsumerEnabled(),
                p.getMessageGrouping() == AQQueueTableProperty.TRANSACTIONAL ? "TRANSACTIONAL" : "NONE",
                p.getComment(), p.getPrimaryInstance(), p.getSecondaryInstance(), p.getCompatible());
        return getQueueTable(owner, name);
    }

    AQQueueTable getQueueTable(String owner, String name) throws JMSException {
        return session.db().run(c -> {
            try (PreparedStatement st = c.prepareStatement(
                    "SELECT t.schema_name::text, t.table_name::text, t.payload_type::regtype::text, "
                    + "t.multiple_consumers, t.message_grouping, t.comment "
                    + "FROM aq.resolve_queue_table(?) t")) {
                st.setString(1, owner + "." + name);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    AQQueueTableProperty p = new AQQueueTableProperty(rs.getString(3));
                    p.setMultiConsumer(rs.getBoolean(4));
                    p.setMessageGrouping("TRANSACTIONAL".equalsIgnoreCase(rs.getString(5))
                            ? AQQueueTableProperty.TRANSACTIONAL : AQQueueTableProperty.NONE);
                    p.setComment(rs.getString(6));
                    return new AQQueueTable(rs.getString(1), rs.getString(2), p);
                }
            }
        });
    }

    AQjmsDestination createQueue(AQQueueTable table, String name, AQjmsDestinationProperty p, boolean topic)
            throws JMSException {
        AQjmsDestinationProperty d = p == null ? new AQjmsDestinationProperty() : p;
        String qualified = table.getOwner() + "." + name;
        call("CALL dbms_aqadm.create_queue(queue_name => ?, queue_table => ?, queue_type => ?, "
                + "max_retries => ?, retry_delay => ?::numeric, retention_time => ?::numeric, comment => ?)",
                qualified, table.qualified(),
                d.getQueueType() == AQjmsDestinationProperty.EXCEPTION_QUEUE ? "EXCEPTION_QUEUE" : "NORMAL_QUEUE",
                d.getMaxRetries(), d.getRetryInterval(), d.getRetentionTime(), d.getComment());
        return topic ? (AQjmsDestination) session.getTopic(table.getOwner(), name)
                : (AQjmsDestination) session.getQueue(table.getOwner(), name);
    }

    void alterQueue(String queue, AQjmsDestinationProperty p) throws JMSException {
        call("CALL dbms_aqadm.alter_queue(queue_name => ?, max_retries => ?, retry_delay => ?::numeric, "
                + "retention_time => ?::numeric, comment => ?)", queue, p.getMaxRetries(), p.getRetryInterval(),
                p.getRetentionTime(), p.getComment());
    }

    void schedulePropagation(String queue, String destination, java.util.Date start, Double duration,
            String next, Double latency) throws JMSException {
        call("CALL dbms_aqadm.schedule_propagation(queue_name => ?, destination => ?, start_time => ?, "
                + "duration => ?, next_time => ?, latency => coalesce(?::double precision, 60))",
                queue, destination, start == null ? null : new Timestamp(start.getTime()), duration, next, latency);
    }
}
