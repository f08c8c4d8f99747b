/**
 * The JMS 1.1 conformance suite: behaviour tests written against javax.jms only, each run
 * once per {@link pgaq.jms.conformance.Provider}: an ActiveMQ 5.17 broker embedded in the test
 * JVM (always), and pgaq through {@code pgaq.jms.AQjmsFactory} (whenever the system property
 * {@code pgaq.jdbc.url} is set; {@code java/build} sets it from PGAQ_JDBC_URL). A run's name,
 * "[activemq]" or "[pgaq]", says which provider it ran on.
 *
 * <pre>
 *   java/build test --select-package pgaq.jms.conformance                      # ActiveMQ only
 *   PGAQ_JDBC_URL='jdbc:postgresql://127.0.0.1:5432/pgaq?user=app' \
 *     java/build test --select-package pgaq.jms.conformance                    # both
 *   java/build test --select-class pgaq.jms.conformance.TopicConformanceTest   # one class
 * </pre>
 *
 * <p>A test that passes on ActiveMQ says what JMS users expect, and pgaq must pass it too.
 * Where Oracle's documentation (Oracle Database Advanced Queuing User's Guide, "Introduction
 * to Oracle Java Message Service") describes another behaviour, the test quotes it and checks
 * Oracle's behaviour on pgaq ({@link pgaq.jms.conformance.Provider#isPgaq()}): priorities in
 * the default, non Java EE compliant mode (a smaller number is more urgent, the default is
 * AQ's 1), ordering by priority only on a queue table made so, destinations that must exist
 * beforehand (a Queue is a single-consumer queue, a Topic a multi-consumer one), a durable
 * subscription re-created with another selector being altered rather than replaced, dead
 * letters in the queue table's exception queue AQ$_&lt;table&gt;_E, expiry by the queue
 * monitor, the database's clock in JMSTimestamp, and AQ's ORA-24033 for a publication no
 * subscriber takes.
 *
 * <p>pgaq's destinations are made through plain JDBC before a session names them (see
 * {@link pgaq.jms.conformance.PgaqProvider}); the login needs to manage the schema
 * {@code jconf} (or the one of PGAQ_JMS_SCHEMA), and the expiry test needs pgaq's monitor
 * service running.
 */
package pgaq.jms.conformance;
