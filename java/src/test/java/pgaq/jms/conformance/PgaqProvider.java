package pgaq.jms.conformance;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.Topic;
import pgaq.jms.AQjmsFactory;

/**
 * pgaq, through {@code pgaq.jms.AQjmsFactory.getConnectionFactory(url, props)} with the
 * JDBC URL of the system property {@code pgaq.jdbc.url} (it may carry {@code ?user=...};
 * {@code pgaq.jdbc.user} / {@code pgaq.jdbc.password} are passed as the props when set).
 *
 * <p>Oracle's JMS needs its destinations made beforehand: "An administrator creates the
 * single-consumer queues with the createQueue method in AQjmsSession. Before they can be
 * used, the queues must be enabled for enqueue/dequeue using the start call" (Oracle Database
 * Advanced Queuing User's Guide, "JMS Point-to-Point Model Features"), and a Topic "maps to a
 * multiconsumer queue" ("JMS Destination"). So each destination is made here, through plain
 * JDBC on a connection of its own, as a DBA script would: a queue table of the generic payload
 * type SYS.AQ$_JMS_MESSAGE (every body type fits: the guide's "Java EE Compliance"),
 * multiple_consumers for a topic, then create_queue and start_queue. The session then names
 * it as Oracle's AQjmsSession.createQueue(String) / createTopic(String) take it:
 * "OWNER.NAME", OWNER being the schema of the system property {@code pgaq.jms.schema}
 * (default {@code jconf}, made when missing).
 *
 * <p>What a test made is dropped after it (drop_queue_table with force) unless the system
 * property {@code pgaq.jms.keep} is true. Each {@code pgaq.x.y} setting may also come from the
 * environment as {@code PGAQ_X_Y} (PGAQ_JDBC_USER, PGAQ_JDBC_PASSWORD, PGAQ_JMS_SCHEMA,
 * PGAQ_JMS_KEEP).
 */
final class PgaqProvider extends Provider {
    private final String url;
    private final Properties props = new Properties();
    private final String schema;
    private final boolean keep;
    /** queue name (unqualified) -> its queue table (unqualified), made by this run */
    private final Map<String, String> tables = new ConcurrentHashMap<>();
    private final List<String> madeByLastTest = new ArrayList<>();
    private Connection admin;

    PgaqProvider(String url) {
        super("pgaq");
        this.url = url;
        String user = setting("pgaq.jdbc.user", "PGAQ_JDBC_USER", null);
        String password = setting("pgaq.jdbc.password", "PGAQ_JDBC_PASSWORD", null);
        if (user != null) {
            props.setProperty("user", user);
        }
        if (password != null) {
            props.setProperty("password", password);
        }
        schema = setting("pgaq.jms.schema", "PGAQ_JMS_SCHEMA", "jconf");
        keep = Boolean.parseBoolean(setting("pgaq.jms.keep", "PGAQ_JMS_KEEP", "false"));
    }

    /** A system property, else an environment variable (java/build passes only the URL as a
     *  property), else the default. */
    private static String setting(String property, String variable, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isEmpty()) {
            v = System.getenv(variable);
        }
        return v == null || v.isEmpty() ? fallback : v;
    }

    @Override
    public boolean isPgaq() {
        return true;
    }

    @Override
    public ConnectionFactory connectionFactory() throws JMSException {
        return AQjmsFactory.getConnectionFactory(url, props);
    }

    @Override
    public String destinationName(String name) {
        return qualified(name);
    }

    @Override
    public Queue queue(Session session, String name) throws JMSException {
        make(name, false, false, 5);
        return session.createQueue(qualified(name));
    }

    @Override
    public Topic topic(Session session, String name) throws JMSException {
        make(name, true, false, 5);
        return session.createTopic(qualified(name));
    }

    @Override
    public Queue priorityQueue(Session session, String name) throws JMSException {
        make(name, false, true, 5);
        return session.createQueue(qualified(name));
    }

    @Override
    public Queue queueWithMaxRetries(Session session, String name, int maxRetries)
            throws JMSException {
        make(name, false, false, maxRetries);
        return session.createQueue(qualified(name));
    }

    /** The queue table's default exception queue, AQ$_&lt;queue table&gt;_E ("Exception
     *  Queues": "the default exception queue is automatically created when the queue table is
     *  created and is named AQ$_queue_table_name_E"), started for dequeue only ("You get an
     *  exception if you try to enable it for enqueue"). */
    @Override
    public Queue exceptionQueue(Session session, Queue queue) throws JMSException {
        String name = unqualified(queue.getQueueName());
        String table = tables.get(name);
        if (table == null) {
            throw new IllegalArgumentException(queue + " was not made by this provider");
        }
        String exceptionQueue = exceptionQueueName(table);
        sql(c -> {
            try (CallableStatement s = c.prepareCall(
                    "CALL dbms_aqadm.start_queue(queue_name => ?, enqueue => false, dequeue => true)")) {
                s.setString(1, schema + "." + exceptionQueue);
                s.execute();
            }
        });
        return session.createQueue(qualified(exceptionQueue));
    }

    /** Oracle's name of a queue table's default exception queue: AQ$_&lt;table&gt;_E. */
    static String exceptionQueueName(String queueTable) {
        return "aq$_" + queueTable + "_e";
    }

    private String qualified(String name) {
        return schema + "." + name;
    }

    private static String unqualified(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        int dot = n.lastIndexOf('.');
        return dot < 0 ? n : n.substring(dot + 1);
    }

    private void make(String name, boolean multipleConsumers, boolean byPriority, int maxRetries)
            throws JMSException {
        if (tables.containsKey(name)) {
            return;
        }
        String table = name + "_qt";
        sql(c -> {
            try (CallableStatement s = c.prepareCall("CALL dbms_aqadm.create_queue_table("
                    + "queue_table => ?, queue_payload_type => 'SYS.AQ$_JMS_MESSAGE', "
                    + "sort_list => ?, multiple_consumers => ?)")) {
                s.setString(1, qualified(table));
                if (byPriority) {
                    s.setString(2, "PRIORITY,ENQ_TIME");
                } else {
                    s.setNull(2, Types.VARCHAR);
                }
                s.setBoolean(3, multipleConsumers);
                s.execute();
            }
            try (CallableStatement s = c.prepareCall("CALL dbms_aqadm.create_queue("
                    + "queue_name => ?, queue_table => ?, max_retries => ?)")) {
                s.setString(1, qualified(name));
                s.setString(2, qualified(table));
                s.setInt(3, maxRetries);
                s.execute();
            }
            try (CallableStatement s = c.prepareCall(
                    "CALL dbms_aqadm.start_queue(queue_name => ?)")) {
                s.setString(1, qualified(name));
                s.execute();
            }
        });
        tables.put(name, table);
        synchronized (madeByLastTest) {
            madeByLastTest.add(table);
        }
    }

    @Override
    public void cleanUp() {
        List<String> made;
        synchronized (madeByLastTest) {
            made = new ArrayList<>(madeByLastTest);
            madeByLastTest.clear();
        }
        if (keep || made.isEmpty()) {
            return;
        }
        for (String table : made) {
            try {
                sql(c -> {
                    try (PreparedStatement s = c.prepareStatement(
                            "CALL dbms_aqadm.drop_queue_table(queue_table => ?, force => true)")) {
                        s.setString(1, qualified(table));
                        s.execute();
                    }
                });
            } catch (JMSException e) {
                // best effort: a table a test left busy stays (unique names: nothing reuses it)
            }
        }
    }

    @Override
    protected synchronized void end() {
        if (admin != null) {
            try {
                admin.close();
            } catch (SQLException e) {
                // its database goes with the test: nothing to release there
            }
            admin = null;
        }
    }

    private interface Work {
        void run(Connection c) throws SQLException;
    }

    private synchronized void sql(Work work) throws JMSException {
        try {
            if (admin == null || admin.isClosed()) {
                admin = DriverManager.getConnection(url, props);
                admin.setAutoCommit(true);
                try (Statement s = admin.createStatement()) {
                    s.execute("SET lock_timeout = '5s'");
                }
                boolean exists;
                try (PreparedStatement s = admin.prepareStatement(
                        "SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
                    s.setString(1, schema);
                    try (java.sql.ResultSet r = s.executeQuery()) {
                        exists = r.next();
                    }
                }
                if (!exists) {
                    try (Statement s = admin.createStatement()) {
                        s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
                    }
                }
            }
            work.run(admin);
        } catch (SQLException e) {
            JMSException j = new JMSException("pgaq administration failed: " + e.getMessage());
            j.setLinkedException(e);
            j.initCause(e);
            throw j;
        }
    }
}
