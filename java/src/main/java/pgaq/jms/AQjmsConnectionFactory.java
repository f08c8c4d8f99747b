package pgaq.jms;

import java.util.Properties;
import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.QueueConnection;
import javax.jms.QueueConnectionFactory;
import javax.jms.TopicConnection;
import javax.jms.TopicConnectionFactory;

/** ConnectionFactory, QueueConnectionFactory and TopicConnectionFactory for one database. */
public class AQjmsConnectionFactory
        implements ConnectionFactory, QueueConnectionFactory, TopicConnectionFactory {
    final String url;
    /** What the JDBC driver takes (user, password, ...), pgaq's own options removed. */
    final Properties info;
    /** Oracle's Java EE compliant mode: the system property oracle.jms.j2eeCompliant, or
     *  the factory property pgaq.j2eeCompliant ("Java EE Compliance"). */
    final boolean j2eeCompliant;
    /** How often a waiting receive or listener looks without a NOTIFY (a lost one delays a
     *  delivery by at most this): pgaq.safetyPollMillis, default 1000. */
    final long safetyPollMillis;
    /** Where temporary destinations go (NULL: the user's schema): pgaq.temporarySchema. */
    final String temporarySchema;

    AQjmsConnectionFactory(String url, Properties info) throws JMSException {
        if (url == null || !url.startsWith("jdbc:postgresql:")) {
            throw new AQjmsException("JMS-100", "invalid JDBC URL " + url
                    + ": pgaq takes jdbc:postgresql://host:port/database");
        }
        this.url = url;
        Properties p = info == null ? new Properties() : (Properties) info.clone();
        String compliant = p.getProperty("pgaq.j2eeCompliant", System.getProperty("oracle.jms.j2eeCompliant", "false"));
        this.j2eeCompliant = Boolean.parseBoolean(compliant.trim());
        try {
            this.safetyPollMillis = Long.parseLong(p.getProperty("pgaq.safetyPollMillis", "1000").trim());
        } catch (NumberFormatException e) {
            throw new AQjmsException("JMS-100", "pgaq.safetyPollMillis is a number of milliseconds: "
                    + p.getProperty("pgaq.safetyPollMillis"));
        }
        if (safetyPollMillis <= 0) {
            throw new AQjmsException("JMS-100", "pgaq.safetyPollMillis is positive: " + safetyPollMillis);
        }
        this.temporarySchema = p.getProperty("pgaq.temporarySchema");
        for (String k : new String[] {"pgaq.j2eeCompliant", "pgaq.safetyPollMillis", "pgaq.temporarySchema"}) {
            p.remove(k);
        }
        this.info = p;
    }

    @Override
    public Connection createConnection() throws JMSException {
        return new AQjmsConnection(this, null, null);
    }

    @Override
    public Connection createConnection(String user, String password) throws JMSException {
        return new AQjmsConnection(this, user, password);
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        return new AQjmsConnection(this, null, null);
    }

    @Override
    public QueueConnection createQueueConnection(String user, String password) throws JMSException {
        return new AQjmsConnection(this, user, password);
    }

    @Override
    public TopicConnection createTopicConnection() throws JMSException {
        return new AQjmsConnection(this, null, null);
    }

    @Override
    public TopicConnection createTopicConnection(String user, String password) throws JMSException {
        return new AQjmsConnection(this, user, password);
    }
}
