package pgaq.jms;

import java.util.Properties;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.QueueConnectionFactory;
import javax.jms.TopicConnectionFactory;

/**
 * Oracle's entry point (Oracle Database Advanced Queuing User's Guide, "Using AQjmsFactory to
 * Obtain ConnectionFactory Objects"): connection factories for a pgaq database, given its
 * PostgreSQL JDBC URL ({@code jdbc:postgresql://host:port/database}). A program written for
 * Oracle changes its imports and this URL, nothing else.
 */
public final class AQjmsFactory {
    private AQjmsFactory() {
    }

    /** A factory for Queue and Topic connections; {@code info} as the JDBC driver takes it
     *  (user, password, ...), plus pgaq's own options (see AQjmsConnectionFactory). */
    public static ConnectionFactory getConnectionFactory(String jdbcURL, Properties info)
            throws JMSException {
        return new AQjmsConnectionFactory(jdbcURL, info);
    }

    public static QueueConnectionFactory getQueueConnectionFactory(String jdbcURL, Properties info)
            throws JMSException {
        return new AQjmsConnectionFactory(jdbcURL, info);
    }

    public static TopicConnectionFactory getTopicConnectionFactory(String jdbcURL, Properties info)
            throws JMSException {
        return new AQjmsConnectionFactory(jdbcURL, info);
    }

    /** Oracle's host/SID/port/driver form: here host, database name and port of PostgreSQL
     *  (the driver argument, Oracle's "thin" or "oci8", is accepted and ignored). */
    public static ConnectionFactory getConnectionFactory(String host, String database, int port,
            String driver) throws JMSException {
        return new AQjmsConnectionFactory(url(host, database, port), new Properties());
    }

    public static QueueConnectionFactory getQueueConnectionFactory(String host, String database,
            int port, String driver) throws JMSException {
        return new AQjmsConnectionFactory(url(host, database, port), new Properties());
    }

    public static TopicConnectionFactory getTopicConnectionFactory(String host, String database,
            int port, String driver) throws JMSException {
        return new AQjmsConnectionFactory(url(host, database, port), new Properties());
    }

    private static String url(String host, String database, int port) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }
}
