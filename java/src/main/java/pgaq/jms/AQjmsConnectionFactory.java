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
    final Properties info;

    AQjmsConnectionFactory(String url, Properties info) throws JMSException {
        if (url == null || !url.startsWith("jdbc:postgresql:")) {
            throw new AQjmsException("JMS-100", "invalid JDBC URL " + url
                    + ": pgaq takes jdbc:postgresql://host:port/database");
        }
        this.url = url;
        this.info = info == null ? new Properties() : (Properties) info.clone();
    }

    @Override
    public Connection createConnection() throws JMSException {
        throw new AQjmsException("JMS-100", "not yet");
    }

    @Override
    public Connection createConnection(String user, String password) throws JMSException {
        throw new AQjmsException("JMS-100", "not yet");
    }

    @Override
    public QueueConnection createQueueConnection() throws JMSException {
        throw new AQjmsException("JMS-100", "not yet");
    }

    @Override
    public QueueConnection createQueueConnection(String user, String password) throws JMSException {
        throw new AQjmsException("JMS-100", "not yet");
    }

    @Override
    public TopicConnection createTopicConnection() throws JMSException {
        throw new AQjmsException("JMS-100", "not yet");
    }

    @Override
    public TopicConnection createTopicConnection(String user, String password) throws JMSException {
        throw new AQjmsException("JMS-100", "not yet");
    }
}
