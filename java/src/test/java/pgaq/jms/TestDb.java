package pgaq.jms;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import org.junit.jupiter.api.Assumptions;

/**
 * The pgaq database the Java tests run on (system property pgaq.jdbc.url, which
 * tests/java/test_java_provider.py sets to a fresh database of the test cluster) and the
 * queues they make there, through plain JDBC and dbms_aqadm, as an administrator would.
 */
public final class TestDb {
    private static final AtomicInteger NAMES = new AtomicInteger();
    public static final String SCHEMA = "jt";

    private TestDb() {
    }

    public static String url() {
        String url = System.getProperty("pgaq.jdbc.url", "");
        Assumptions.assumeTrue(!url.isEmpty(), "pgaq.jdbc.url is not set: no pgaq database to test against");
        return url;
    }

    public static ConnectionFactory factory() throws JMSException {
        return AQjmsFactory.getConnectionFactory(url(), new Properties());
    }

    public static ConnectionFactory factory(Properties options) throws JMSException {
        return AQjmsFactory.getConnectionFactory(url(), options);
    }

    public static Connection jdbc() throws SQLException {
        return DriverManager.getConnection(url());
    }

    /** A name no other test uses. */
    public static String unique(String prefix) {
        return prefix + "_" + NAMES.incrementAndGet() + "_" + Long.toHexString(System.nanoTime() & 0xFFFFFF);
    }

    /** A started queue (multi: a topic) of the payload type, in schema jt; its "jt.name". */
    public static String createQueue(String name, boolean multi, String payloadType) throws SQLException {
        try (Connection c = jdbc()) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            }
            call(c, "CALL dbms_aqadm.create_queue_table(queue_table => ?, queue_payload_type => ?, "
                    + "multiple_consumers => ?)", SCHEMA + "." + name + "_t", payloadType, multi);
            call(c, "CALL dbms_aqadm.create_queue(queue_name => ?, queue_table => ?)",
                    SCHEMA + "." + name, SCHEMA + "." + name + "_t");
            call(c, "CALL dbms_aqadm.start_queue(queue_name => ?)", SCHEMA + "." + name);
        }
        return SCHEMA + "." + name;
    }

    /** A queue of generic JMS messages (every body type). */
    public static String queue(String prefix) throws SQLException {
        return createQueue(unique(prefix), false, "SYS.AQ$_JMS_MESSAGE");
    }

    public static String topic(String prefix) throws SQLException {
        return createQueue(unique(prefix), true, "SYS.AQ$_JMS_MESSAGE");
    }

    public static void call(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement st = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                st.setObject(i + 1, args[i]);
            }
            st.execute();
        }
    }

    public static String name(String qualified) {
        return qualified.substring(qualified.indexOf('.') + 1);
    }
}
