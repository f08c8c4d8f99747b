package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.jms.ConnectionFactory;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageListener;
import javax.jms.Session;
import javax.jms.TextMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jms.annotation.JmsListener;
import org.springframework.jms.annotation.JmsListenerAnnotationBeanPostProcessor;
import org.springframework.jms.config.DefaultJmsListenerContainerFactory;
import org.springframework.jms.config.JmsListenerConfigUtils;
import org.springframework.jms.config.JmsListenerEndpointRegistry;
import org.springframework.jms.connection.CachingConnectionFactory;
import org.springframework.jms.connection.JmsTransactionManager;
import org.springframework.jms.core.JmsTemplate;
import org.springframework.jms.listener.DefaultMessageListenerContainer;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Spring JMS 4.3 (Debian's libspring-jms-java) on pgaq, as a Spring application configures
 * it: AQjmsFactory's ConnectionFactory under Spring's CachingConnectionFactory, JmsTemplate
 * for sending, receiving and browsing (destinations by name, through Spring's
 * DynamicDestinationResolver and Session.createQueue), DefaultMessageListenerContainer for
 * concurrent transacted listeners, and an XML-free configuration with @EnableJms and
 * @JmsListener. Queues are made in the login's schema with dbms_aqadm, as an administrator
 * would, so that Spring's plain names ("spring_orders") find them.
 */
class SpringJmsTest {
    private CachingConnectionFactory factory;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void open() throws JMSException {
        factory = new CachingConnectionFactory(AQjmsFactory.getConnectionFactory(TestDb.url(), new Properties()));
        factory.setSessionCacheSize(4);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        factory.destroy();
    }

    /** A started queue of JMS messages "name" in the login's schema, in a table of its own
     *  ("name_qt", whose exception queue is aq$_name_qt_e); maxRetries null: AQ's default. */
    static void queue(String name, Integer maxRetries) throws Exception {
        try (Connection c = TestDb.jdbc()) {
            TestDb.call(c, "CALL dbms_aqadm.create_queue_table(queue_table => ?, queue_payload_type => ?)",
                    name + "_qt", "SYS.AQ$_JMS_MESSAGE");
            if (maxRetries == null) {
                TestDb.call(c, "CALL dbms_aqadm.create_queue(queue_name => ?, queue_table => ?)", name, name + "_qt");
            } else {
                TestDb.call(c, "CALL dbms_aqadm.create_queue(queue_name => ?, queue_table => ?, max_retries => ?)",
                        name, name + "_qt", maxRetries);
            }
            TestDb.call(c, "CALL dbms_aqadm.start_queue(queue_name => ?)", name);
        }
    }

    static String loginSchema() throws Exception {
        try (Connection c = TestDb.jdbc(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (aq.qualify('x'))[1]")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private JmsTemplate template() {
        JmsTemplate t = new JmsTemplate(factory);
        t.setReceiveTimeout(10_000);
        return t;
    }

    // -- JmsTemplate ---------------------------------------------------------------------------

    @Test
    void convertAndSendAndReceiveAndConvertStringsAndMaps() throws Exception {
        String q = TestDb.unique("spring_convert");
        queue(q, null);
        JmsTemplate t = template();
        t.convertAndSend(q, "hello from Spring");
        Map<String, Object> order = new LinkedHashMap<>();
        order.put("item", "book");
        order.put("quantity", 3);
        order.put("price", 12.5);
        t.convertAndSend(q, order);
        assertEquals("hello from Spring", t.receiveAndConvert(q));
        Object got = t.receiveAndConvert(q);
        assertEquals(order, got, "a Map travels as a MapMessage");
        t.setReceiveTimeout(JmsTemplate.RECEIVE_TIMEOUT_NO_WAIT);
        assertNull(t.receiveAndConvert(q));
    }

    @Test
    void aDefaultDestinationByNameWithOrWithoutItsOwner() throws Exception {
        String q = TestDb.unique("spring_default");
        queue(q, null);
        JmsTemplate t = template();
        t.setDefaultDestinationName(q);  // "name": the login's schema
        t.convertAndSend("by name");
        JmsTemplate qualified = template();
        qualified.setDefaultDestinationName(loginSchema() + "." + q);  // "owner.name"
        assertEquals("by name", qualified.receiveAndConvert());
        qualified.convertAndSend("by owner.name");
        assertEquals("by owner.name", t.receiveAndConvert());
    }

    @Test
    void receiveSelectedTakesOnlyWhatTheSelectorMatches() throws Exception {
        String q = TestDb.unique("spring_selected");
        queue(q, null);
        JmsTemplate t = template();
        for (String region : new String[] {"EU", "US", "EU", "US"}) {
            t.convertAndSend(q, "to " + region, m -> {
                m.setStringProperty("region", region);
                return m;
            });
        }
        Message us = t.receiveSelected(q, "region = 'US'");
        assertEquals("to US", ((TextMessage) us).getText());
        assertEquals("to US", t.receiveSelectedAndConvert(q, "region = 'US'"));
        t.setReceiveTimeout(500);
        assertNull(t.receiveSelected(q, "region = 'US'"));
        assertEquals("to EU", t.receiveAndConvert(q));
        assertEquals("to EU", t.receiveAndConvert(q));
    }

    @Test
    void browseShowsTheMessagesAndLeavesThem() throws Exception {
        String q = TestDb.unique("spring_browse");
        queue(q, null);
        JmsTemplate t = template();
        for (int i = 0; i < 3; i++) {
            t.convertAndSend(q, "m" + i);
        }
        List<String> seen = t.browse(q, (session, browser) -> {
            List<String> out = new ArrayList<>();
            for (Enumeration<?> e = browser.getEnumeration(); e.hasMoreElements();) {
                out.add(((TextMessage) e.nextElement()).getText());
            }
            return out;
        });
        assertEquals(java.util.Arrays.asList("m0", "m1", "m2"), seen);
        Boolean any = t.browseSelected(q, "JMSCorrelationID = 'none'",
                (session, browser) -> browser.getEnumeration().hasMoreElements());
        assertEquals(Boolean.FALSE, any);
        assertEquals("m0", t.receiveAndConvert(q), "browsing removed nothing");
    }

    @Test
    void aSessionTransactedTemplateCommitsEachOperationAndJoinsSpringTransactions() throws Exception {
        String q = TestDb.unique("spring_tx");
        queue(q, null);
        JmsTemplate t = template();
        t.setSessionTransacted(true);
        t.convertAndSend(q, "committed by the template");
        JmsTemplate other = template();  // another session sees it: the send was committed
        assertEquals("committed by the template", other.receiveAndConvert(q));

        TransactionTemplate tx = new TransactionTemplate(new JmsTransactionManager(factory));
        tx.execute(status -> {
            t.convertAndSend(q, "rolled back");
            status.setRollbackOnly();
            return null;
        });
        tx.execute(status -> {
            t.convertAndSend(q, "one");
            t.convertAndSend(q, "two");
            return null;
        });
        assertEquals("one", other.receiveAndConvert(q));
        assertEquals("two", other.receiveAndConvert(q));
        other.setReceiveTimeout(500);
        assertNull(other.receiveAndConvert(q), "the rolled-back send never arrived");

        // a receive in a rolled-back transaction comes again
        t.convertAndSend(q, "again");
        tx.execute(status -> {
            assertEquals("again", t.receiveAndConvert(q));
            status.setRollbackOnly();
            return null;
        });
        Message m = other.receive(q);
        assertEquals("again", ((TextMessage) m).getText());
        assertTrue(m.getJMSRedelivered());
        assertEquals(2, m.getIntProperty("JMSXDeliveryCount"));
    }

    // -- DefaultMessageListenerContainer -------------------------------------------------------

    private DefaultMessageListenerContainer container(String queue, int consumers, MessageListener l) {
        DefaultMessageListenerContainer c = new DefaultMessageListenerContainer();
        c.setConnectionFactory(factory);
        c.setDestinationName(queue);
        c.setSessionTransacted(true);
        c.setConcurrentConsumers(consumers);
        c.setReceiveTimeout(1000);
        c.setMessageListener(l);
        c.afterPropertiesSet();
        toClose.add(c::shutdown);
        return c;
    }

    @Test
    void threeConcurrentTransactedConsumersReceiveEveryMessageExactlyOnce() throws Exception {
        String q = TestDb.unique("spring_dmlc");
        queue(q, null);
        int n = 90;
        JmsTemplate t = template();
        for (int i = 0; i < n; i++) {
            t.convertAndSend(q, "order " + i);
        }
        Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        // the listeners go on once three of them hold a message at the same time: the three
        // consumers receive concurrently, each in its own transaction
        CountDownLatch together = new CountDownLatch(3);
        AtomicInteger alone = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(n);
        DefaultMessageListenerContainer c = container(q, 3, m -> {
            try {
                if (threads.add(Thread.currentThread().getName())) {
                    together.countDown();
                }
                if (!together.await(30, TimeUnit.SECONDS)) {
                    alone.incrementAndGet();
                }
                seen.computeIfAbsent(((TextMessage) m).getText(), k -> new AtomicInteger()).incrementAndGet();
                all.countDown();
            } catch (JMSException e) {
                throw new RuntimeException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        c.start();
        assertTrue(all.await(60, TimeUnit.SECONDS), "all " + n + " delivered; got " + seen.size());
        c.stop();
        assertEquals(0, alone.get(), "three consumers held messages at once: " + threads);
        assertEquals(3, threads.size());
        t.setReceiveTimeout(500);
        assertNull(t.receive(q), "nothing left behind");
        assertEquals(n, seen.size());
        for (Map.Entry<String, AtomicInteger> e : seen.entrySet()) {
            assertEquals(1, e.getValue().get(), e.getKey() + " delivered once");
        }
    }

    @Test
    void aListenerThatThrowsIsRedeliveredThenItsMessageGoesToTheExceptionQueue() throws Exception {
        String q = TestDb.unique("spring_poison");
        queue(q, 2);  // dbms_aqadm.create_queue(..., max_retries => 2)
        BlockingQueue<Integer> poisonCounts = new ArrayBlockingQueue<>(10);
        BlockingQueue<String> done = new ArrayBlockingQueue<>(10);
        // one consumer: with several, another may take the message between the rollback and
        // the recording of its failed attempt (pgaq counts it in a statement after the
        // rollback), and see the same JMSXDeliveryCount again
        DefaultMessageListenerContainer c = container(q, 1, m -> {
            try {
                String text = ((TextMessage) m).getText();
                if (text.equals("poison")) {
                    poisonCounts.add(m.getIntProperty("JMSXDeliveryCount"));
                    throw new IllegalStateException("cannot process " + text);
                }
                done.add(text);
            } catch (JMSException e) {
                throw new RuntimeException(e);
            }
        });
        c.start();
        JmsTemplate t = template();
        t.convertAndSend(q, "poison");
        t.convertAndSend(q, "fine");
        assertEquals("fine", done.poll(30, TimeUnit.SECONDS));
        // AQ moves a message when its failed attempts exceed max_retries: the first delivery
        // and two retries (Oracle Database Advanced Queuing User's Guide, "Exception Queues")
        assertEquals(1, poisonCounts.poll(30, TimeUnit.SECONDS));
        assertEquals(2, poisonCounts.poll(30, TimeUnit.SECONDS));
        assertEquals(3, poisonCounts.poll(30, TimeUnit.SECONDS));

        // the exception queue AQ$_<queue table>_E, in the queue's schema, read point-to-point
        javax.jms.Connection conn = TestDb.factory().createConnection();
        try {
            AQjmsSession s = (AQjmsSession) conn.createSession(false, Session.AUTO_ACKNOWLEDGE);
            conn.start();
            AQjmsDestination exceptionQueue = (AQjmsDestination) s.getQueue(loginSchema(), "AQ$_" + q + "_qt_E");
            exceptionQueue.start(s, false, true);  // "enabled for receiving messages using the start method"
            Message dead = s.createConsumer(exceptionQueue).receive(30_000);
            assertNotNull(dead, "the message is in the exception queue");
            assertEquals("poison", ((TextMessage) dead).getText());
        } finally {
            conn.close();
        }
        c.stop();
        assertNull(poisonCounts.poll(0, TimeUnit.SECONDS), "no delivery after the move");
        t.setReceiveTimeout(500);
        assertNull(t.receive(q));
    }

    // -- the XML-free configuration (a ConnectionFactory bean) ---------------------------------------

    /**
     * The configuration a Spring application writes for pgaq: AQjmsFactory's ConnectionFactory,
     * cached by Spring, as the ConnectionFactory bean; a JmsTemplate; and the listener
     * container factory @JmsListener methods use (transacted, three consumers). The JDBC URL
     * is pgaq's database, jdbc:postgresql://host:port/database, the login in the URL or in
     * the Properties ("user", "password").
     *
     * <p>@Bean methods in "lite" mode, without @Configuration and @EnableJms: Spring 4.3
     * enhances @Configuration classes with its CGLIB, which does not run on Java 17 (Debian's
     * Spring 4.3 here; Spring 5.1 and later do). So the two beans @EnableJms would register
     * (JmsBootstrapConfiguration's) are declared too. With a newer Spring, annotate the
     * class {@code @Configuration @EnableJms} and drop those two.
     */
    static class PgaqJmsConfiguration {
        @Bean
        public ConnectionFactory connectionFactory() throws JMSException {
            Properties info = new Properties();  // "user", "password", pgaq's own options
            CachingConnectionFactory cached = new CachingConnectionFactory(
                    AQjmsFactory.getConnectionFactory(TestDb.url(), info));
            cached.setSessionCacheSize(10);
            return cached;
        }

        @Bean
        public JmsTemplate jmsTemplate(ConnectionFactory connectionFactory) {
            JmsTemplate t = new JmsTemplate(connectionFactory);
            t.setReceiveTimeout(10_000);
            return t;
        }

        @Bean
        public DefaultJmsListenerContainerFactory jmsListenerContainerFactory(ConnectionFactory connectionFactory) {
            DefaultJmsListenerContainerFactory f = new DefaultJmsListenerContainerFactory();
            f.setConnectionFactory(connectionFactory);
            f.setSessionTransacted(true);
            f.setConcurrency("3");
            return f;
        }

        @Bean
        public OrderListener orderListener() {
            return new OrderListener();
        }

        // what @EnableJms registers
        @Bean(name = JmsListenerConfigUtils.JMS_LISTENER_ANNOTATION_PROCESSOR_BEAN_NAME)
        public static JmsListenerAnnotationBeanPostProcessor jmsListenerAnnotationProcessor() {
            return new JmsListenerAnnotationBeanPostProcessor();
        }

        @Bean(name = JmsListenerConfigUtils.JMS_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME)
        public static JmsListenerEndpointRegistry jmsListenerEndpointRegistry() {
            return new JmsListenerEndpointRegistry();
        }
    }

    /** An application's listener: the queue spring_orders of the login's schema. */
    static class OrderListener {
        static final BlockingQueue<Map<String, Object>> RECEIVED = new ArrayBlockingQueue<>(10);

        @JmsListener(destination = "spring_orders")
        public void onOrder(Map<String, Object> order) {
            RECEIVED.add(order);
        }
    }

    @Test
    void anXmlFreeConfigurationWithAnnotatedListeners() throws Exception {
        queue("spring_orders", null);
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(PgaqJmsConfiguration.class);
        try {
            JmsTemplate t = context.getBean(JmsTemplate.class);
            Map<String, Object> order = new HashMap<>();
            order.put("id", 42);
            order.put("item", "tea");
            t.convertAndSend("spring_orders", order);
            assertEquals(order, OrderListener.RECEIVED.poll(30, TimeUnit.SECONDS));
        } finally {
            context.close();
        }
    }
}
