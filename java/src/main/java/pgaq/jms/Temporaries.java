package pgaq.jms;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import javax.jms.JMSException;

/**
 * One JMS connection's temporary destinations (JMS 1.1 section 4.4.3), made, named and
 * dropped by the SQL every pgaq client shares (aq.jms_create_temporary and its neighbours):
 * generic JMS queues in the factory's temporary schema, else the user's. The lease is an
 * advisory lock held by a database connection of this object's own, opened with the first
 * temporary destination; closing the JMS connection drops them, and if the process dies the
 * lock goes with it and the next aq.jms_create_temporary of the schema drops them.
 */
final class Temporaries {
    private final AQjmsConnection owner;
    private final Set<String> names = new HashSet<>();
    private Connection db;
    private int lease;

    Temporaries(AQjmsConnection owner) {
        this.owner = owner;
    }

    synchronized AQjmsDestination create(boolean topic) throws JMSException {
        owner.checkOpen();
        try {
            ensure();
            String qualified;
            try (PreparedStatement st = db.prepareStatement(Sql.load("create_temporary"))) {
                st.setBoolean(1, topic);
                st.setInt(2, lease);
                st.setString(3, owner.factory().temporarySchema);
                try (ResultSet rs = st.executeQuery()) {
                    rs.next();
                    qualified = rs.getString(1);
                }
            }
            names.add(qualified.toLowerCase(Locale.ROOT));
            int dot = qualified.indexOf('.');
            String schema = qualified.substring(0, dot);
            String name = qualified.substring(dot + 1);
            return topic ? new AQjmsTemporaryTopic(schema, name, owner)
                    : new AQjmsTemporaryQueue(schema, name, owner);
        } catch (SQLException e) {
            throw Sql.error(e);
        }
    }

    /** Whether this connection made the destination and has not deleted it. */
    synchronized boolean owns(AQjmsDestination d) {
        return names.contains(d.key());
    }

    synchronized void delete(AQjmsDestination d) throws JMSException {
        owner.checkOpen();
        if (owner.hasConsumersOn(d)) {
            throw new javax.jms.IllegalStateException("JMS-232: a temporary destination with open consumers "
                    + "cannot be deleted (JMS 1.1 TemporaryQueue.delete)", "JMS-232");
        }
        try {
            ensure();
            try (PreparedStatement st = db.prepareStatement(Sql.load("drop_temporary"))) {
                st.setString(1, d.getCompleteName());
                st.setInt(2, lease);
                st.execute();
            }
            names.remove(d.key());
        } catch (SQLException e) {
            throw Sql.error(e);
        }
    }

    synchronized void close() throws JMSException {
        if (db == null) {
            return;
        }
        try {
            if (!names.isEmpty()) {
                try (PreparedStatement st = db.prepareStatement(Sql.load("drop_temporaries"))) {
                    st.setInt(1, lease);
                    st.execute();
                }
            }
        } catch (SQLException e) {
            throw Sql.error(e);
        } finally {
            names.clear();
            try {
                db.close();  // the lease goes with it
            } catch (SQLException ignored) {
                // a lost lease connection: its temporaries are orphans the next create drops
            }
            db = null;
        }
    }

    private void ensure() throws SQLException {
        if (db != null && db.isValid(5)) {
            return;
        }
        if (db != null) {
            try {
                db.close();
            } catch (SQLException ignored) {
                // already lost
            }
        }
        Connection c = owner.openDatabase();
        try (PreparedStatement st = c.prepareStatement(Sql.load("temporary_lease"));
             ResultSet rs = st.executeQuery()) {
            rs.next();
            lease = rs.getInt(1);
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        db = c;
    }
}
