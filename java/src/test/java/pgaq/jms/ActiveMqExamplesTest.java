package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.jms.JMSException;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Debian's ActiveMQ example programs (package activemq: the OpenWire Java examples in
 * /usr/share/doc/activemq/examples/openwire) run unchanged on pgaq but for their connection
 * factory: at test time each example's sources are copied to a temporary directory, the one
 * statement that builds an ActiveMQConnectionFactory becomes AQjmsFactory's factory for the
 * database of the system property pgaq.jdbc.url ({@link #FACTORY}, checked to match once per
 * program), and the copies are compiled against the test class path and run as child JVMs.
 * Their destinations, whether built with ActiveMQ's classes (new ActiveMQTopic("event")) or
 * by name (session.createQueue("test-queue")), are pgaq queues of those names in the login's
 * schema, made here with dbms_aqadm as an administrator would. Each test asserts what the
 * example's readme says it shows, from the programs' own output.
 *
 * <p>Examples that rely on ActiveMQ-only features cannot run unchanged; each has a test that
 * is skipped, giving the reason.
 */
class ActiveMqExamplesTest {
    private static final Path EXAMPLES = Paths.get("/usr/share/doc/activemq/examples/openwire");
    /** The connection factory's construction in every example: its declaration with
     *  ActiveMQConnectionFactory's type and constructor (broker URL, user and password). */
    static final Pattern FACTORY = Pattern.compile(
            "ActiveMQConnectionFactory\\s+(\\w+)\\s*=\\s*new\\s+ActiveMQConnectionFactory\\([^;]*\\);");
    /** ... and what it becomes, in a method that throws JMSException (openwire/java's mains) ... */
    static final String PGAQ_FACTORY = "javax.jms.ConnectionFactory $1 = pgaq.jms.AQjmsFactory.getConnectionFactory("
            + "System.getProperty(\"pgaq.jdbc.url\"), new java.util.Properties());";
    /** ... or in one that throws no checked exception (the advanced scenarios' mains, whose
     *  ActiveMQConnectionFactory constructor throws none, while AQjmsFactory's declares
     *  JMSException): the same call, its JMSException rethrown unchecked. */
    static final String PGAQ_FACTORY_UNCHECKED = "javax.jms.ConnectionFactory $1; try { $1 = "
            + "pgaq.jms.AQjmsFactory.getConnectionFactory(System.getProperty(\"pgaq.jdbc.url\"), "
            + "new java.util.Properties()); } catch (javax.jms.JMSException pgaqFailure) { "
            + "throw new java.lang.IllegalStateException(pgaqFailure); }";
    private static final long CHILD_TIMEOUT_S = 180;
    /** The VM options of this JVM (java/build jvm-options: the JIT, the collector, the
     *  class-data archive), which the example programs run with too. */
    private static final List<String> VM_OPTIONS = ManagementFactory.getRuntimeMXBean().getInputArguments()
            .stream().filter(o -> o.startsWith("-XX:") && !o.startsWith("-XX:ArchiveClassesAtExit"))
            .collect(Collectors.toList());

    private static Path work;
    private static String classPath;
    private static String schema;

    @BeforeAll
    static void compileExamples() throws Exception {
        TestDb.url();
        Assumptions.assumeTrue(Files.isDirectory(EXAMPLES), "Debian's package activemq is not installed: no "
                + EXAMPLES);
        work = Files.createTempDirectory("activemq-examples");
        classPath = testClassPath();
        try (Connection c = TestDb.jdbc(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (aq.qualify('x'))[1]")) {
            rs.next();
            schema = rs.getString(1);
        }
    }

    @AfterAll
    static void removeCopies() throws IOException {
        if (work != null) {
            try (Stream<Path> s = Files.walk(work)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The class path the tests run with: the JUnit launcher's class loader's (its
     *  --class-path) and java.class.path. */
    static String testClassPath() throws URISyntaxException {
        Set<String> parts = new LinkedHashSet<>();
        for (ClassLoader l = ActiveMqExamplesTest.class.getClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof URLClassLoader) {
                for (URL u : ((URLClassLoader) l).getURLs()) {
                    parts.add(Paths.get(u.toURI()).toString());
                }
            }
        }
        parts.addAll(Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
        parts.remove("");
        return String.join(File.pathSeparator, parts);
    }

    /** The example in {@code dir} (under EXAMPLES), copied, its factory's construction
     *  replaced by {@code factory}, compiled: the directory of its classes. */
    static Path compile(String dir, String factory) throws IOException {
        Path src = EXAMPLES.resolve(dir).resolve("src/main/java");
        Path copy = work.resolve(dir.replace('/', '_'));
        Path classes = copy.resolve("classes");
        if (Files.isDirectory(classes)) {
            return classes;
        }
        List<String> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(src)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".java")).collect(Collectors.toList())) {
                String text = new String(Files.readAllBytes(p), StandardCharsets.UTF_8);
                Matcher m = FACTORY.matcher(text);
                assertTrue(m.find(), p + ": the ActiveMQConnectionFactory construction");
                String changed = m.replaceFirst(factory);
                assertFalse(FACTORY.matcher(changed).find(), p + ": one factory only");
                Path to = copy.resolve("src").resolve(src.relativize(p));
                Files.createDirectories(to.getParent());
                Files.write(to, changed.getBytes(StandardCharsets.UTF_8));
                files.add(to.toString());
            }
        }
        Files.createDirectories(classes);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(Arrays.asList("-nowarn", "-encoding", "UTF-8", "-proc:none",
                "-cp", classPath, "-d", classes.toString()));
        args.addAll(files);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, errors, errors, args.toArray(new String[0]));
        assertEquals(0, rc, "javac " + dir + ":\n" + new String(errors.toByteArray(), StandardCharsets.UTF_8));
        return classes;
    }

    /** The database user of the JDBC URL (the examples' ACTIVEMQ_USER). */
    static String databaseUser() throws Exception {
        String url = TestDb.url();
        int q = url.indexOf('?');
        if (q >= 0) {
            for (String kv : url.substring(q + 1).split("&")) {
                if (kv.startsWith("user=")) {
                    return URLDecoder.decode(kv.substring(5), "UTF-8");
                }
            }
        }
        return System.getProperty("user.name");  // pgjdbc's default
    }

    /** A fresh destination of JMS messages named {@code name} in the login's schema (a
     *  topic: a multi-consumer queue), in a queue table of its own; one of that name is
     *  dropped first, with what it held. */
    static void fresh(String name, boolean topic) throws Exception {
        String table = name.replaceAll("[^A-Za-z0-9_]", "_").toLowerCase(java.util.Locale.ROOT) + "_qt";
        String quoted = "\"" + name + "\"";
        try (Connection c = TestDb.jdbc()) {
            try (PreparedStatement st = c.prepareStatement(
                    "SELECT 1 FROM aq.queue_tables WHERE schema_name = ? AND table_name = ?")) {
                st.setString(1, schema);
                st.setString(2, table);
                try (ResultSet rs = st.executeQuery()) {
                    if (rs.next()) {
                        TestDb.call(c, "CALL dbms_aqadm.drop_queue_table(queue_table => ?, force => true)", table);
                    }
                }
            }
            TestDb.call(c, "CALL dbms_aqadm.create_queue_table(queue_table => ?, queue_payload_type => ?, "
                    + "multiple_consumers => ?)", table, "SYS.AQ$_JMS_MESSAGE", topic);
            TestDb.call(c, "CALL dbms_aqadm.create_queue(queue_name => ?, queue_table => ?)", quoted, table);
            TestDb.call(c, "CALL dbms_aqadm.start_queue(queue_name => ?)", quoted);
        }
    }

    /** One example program running in a JVM of its own, its output (stdout and stderr) read
     *  line by line as it comes. */
    static final class Child implements AutoCloseable {
        final String name;
        final Process process;
        private final List<String> lines = new ArrayList<>();
        private final Thread reader;
        private final long started = System.nanoTime();

        Child(Path classes, String mainClass, List<String> jvmOptions, String... args) throws Exception {
            this.name = mainClass;
            List<String> cmd = new ArrayList<>();
            cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-cp");
            // the test class path first: the prefix the class-data archive was made for
            cmd.add(classPath + File.pathSeparator + classes);
            cmd.addAll(VM_OPTIONS);
            cmd.add("-Dpgaq.jdbc.url=" + TestDb.url());
            cmd.addAll(jvmOptions);
            cmd.add(mainClass);
            cmd.addAll(Arrays.asList(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            Map<String, String> env = pb.environment();
            env.put("ACTIVEMQ_USER", databaseUser());  // the examples log in with these
            env.put("ACTIVEMQ_PASSWORD", "");
            process = pb.start();
            reader = new Thread(this::read, "output of " + mainClass);
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null;) {
                    synchronized (this) {
                        lines.add(line);
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        }

        /** Whether a line matching {@code p} comes within {@code millis} ms. */
        synchronized boolean awaitLine(Predicate<String> p, long millis) throws InterruptedException {
            long deadline = System.nanoTime() + millis * 1_000_000L;
            while (true) {
                for (String l : lines) {
                    if (p.test(l)) {
                        return true;
                    }
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    return false;
                }
                wait(left);
            }
        }

        synchronized List<String> lines() {
            return new ArrayList<>(lines);
        }

        OutputStream stdin() {
            return process.getOutputStream();
        }

        /** Wait for the program to end by itself: its exit code; its output complete. */
        int finish() throws InterruptedException {
            if (!process.waitFor(CHILD_TIMEOUT_S, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(name + " did not end within " + CHILD_TIMEOUT_S + " s:\n" + output());
            }
            reader.join(10_000);
            System.out.printf("%s ended after %.1f s%n", name, (System.nanoTime() - started) / 1e9);
            return process.exitValue();
        }

        String output() {
            List<String> l = lines();
            return String.join("\n", l.size() > 60 ? l.subList(l.size() - 60, l.size()) : l);
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }

    static Child run(Path classes, String mainClass, String... args) throws Exception {
        return new Child(classes, mainClass, Collections.emptyList(), args);
    }

    static List<String> matching(Child c, String regex) {
        Pattern p = Pattern.compile(regex);
        return c.lines().stream().filter(l -> p.matcher(l).matches()).collect(Collectors.toList());
    }

    static List<String> messages(int from, int to, int step, String format) {
        return IntStream.iterate(from, i -> i + step).limit((to - from + step - 1) / step)
                .mapToObj(i -> String.format(format, i)).collect(Collectors.toList());
    }

    /** Publish probes to the topic until the subscriber running in {@code c} prints one: then
     *  its subscription exists (the example prints nothing when it subscribes). A topic
     *  without subscribers refuses a publication (ORA-24033, AQ's rule): then try again. */
    static void untilSubscribed(Child c, String topic, String echo) throws Exception {
        javax.jms.Connection conn = TestDb.factory().createConnection();
        try {
            Session s = conn.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer p = s.createProducer(s.createTopic(topic));
            for (int i = 0;; i++) {
                try {
                    p.send(s.createTextMessage("probe " + i));
                } catch (JMSException noSubscriberYet) {
                    // the subscriber is not there yet
                }
                if (c.awaitLine(l -> l.startsWith(echo + "probe"), 250)) {
                    return;
                }
                assertTrue(c.process.isAlive() && i < 400, c.name + " never received a probe:\n" + c.output());
            }
        } finally {
            conn.close();
        }
    }

    /** The messages in queue test-queue now, by the selector (null: all). */
    static int browse(String selector) throws JMSException {
        javax.jms.Connection conn = TestDb.factory().createConnection();
        try {
            Session s = conn.createSession(false, Session.AUTO_ACKNOWLEDGE);
            Queue q = s.createQueue("test-queue");
            int n = 0;
            for (Enumeration<?> e = s.createBrowser(q, selector).getEnumeration(); e.hasMoreElements(); e.nextElement()) {
                n++;
            }
            return n;
        } finally {
            conn.close();
        }
    }

    // -- openwire/java: Listener and Publisher -------------------------------------------------

    /** readme: Listener waits for the messages Publisher sends to topic "event" (10000
     *  NON_PERSISTENT ones with an int property id, 1 to 10000, then SHUTDOWN) and prints
     *  "Received N in S seconds" (N: one past the last id) and "mismatch" for a gap. */
    @Test
    void listenerReceivesEverythingPublisherSendsThenShutdown() throws Exception {
        Path classes = compile("java", PGAQ_FACTORY);
        fresh("event", true);
        try (Child listener = run(classes, "example.Listener")) {
            // it prints this once its subscriber exists, before it receives
            assertTrue(listener.awaitLine("Waiting for messages..."::equals, 60_000), listener.output());
            try (Child publisher = run(classes, "example.Publisher")) {
                assertEquals(0, publisher.finish(), publisher.output());
                assertTrue(publisher.lines().contains("Sent 10000 messages"), publisher.output());
            }
            assertEquals(0, listener.finish(), listener.output());
            assertEquals(1, matching(listener, "Received 10001 in [0-9.]+ seconds").size(), listener.output());
            assertEquals(Collections.emptyList(), matching(listener, "mismatch.*|Unexpected.*"));
            assertEquals(messages(1000, 10001, 1000, "Received %d messages."),
                    matching(listener, "Received \\d+ messages\\."));
        }
    }

    // -- advanced-scenarios ------------------------------------------------------------------------

    /** jms-example-queue: Consumer gets the 100 messages Producer sends to test-queue, in
     *  order, then stops 20 s after the last (its receive timeout). */
    @Test
    void queueConsumerGetsEveryMessageOfTheProducer() throws Exception {
        Path classes = compile("advanced-scenarios/jms-example-queue", PGAQ_FACTORY_UNCHECKED);
        fresh("test-queue", false);
        try (Child consumer = run(classes, "example.queue.Consumer");
             Child producer = run(classes, "example.queue.Producer")) {
            assertEquals(0, producer.finish(), producer.output());
            assertEquals(messages(0, 100, 1, "Sending message #%d"), matching(producer, "Sending message #\\d+"));
            assertEquals(0, consumer.finish(), consumer.output());
            assertEquals(messages(0, 100, 1, "Got %1$d. message: Message #%1$d"), matching(consumer, "Got .*"));
            assertEquals(Collections.emptyList(), matching(consumer, "Caught exception!"));
        }
        assertEquals(0, browse(null));
    }

    /** jms-example-queue-selector: Producer marks its messages intended 'me' or 'you' in turn;
     *  Consumer, with the selector "intended = 'me'", gets the 50 for 'me'; the 50 others
     *  stay in the queue. */
    @Test
    void queueSelectorConsumerGetsOnlyTheMatchingMessages() throws Exception {
        Path classes = compile("advanced-scenarios/jms-example-queue-selector", PGAQ_FACTORY_UNCHECKED);
        fresh("test-queue", false);
        try (Child consumer = run(classes, "example.queue.selector.Consumer");
             Child producer = run(classes, "example.queue.selector.Producer")) {
            assertEquals(0, producer.finish(), producer.output());
            assertEquals(0, consumer.finish(), consumer.output());
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                expected.add("Got " + i + ". message: Message #" + (2 * i));
            }
            assertEquals(expected, matching(consumer, "Got .*"));
        }
        assertEquals(50, browse(null));
        assertEquals(50, browse("intended = 'you'"));
    }

    /** jms-example-message-browser: Browser lists the 100 messages Producer left in the
     *  queue, which stay there. */
    @Test
    void browserListsTheMessagesAndLeavesThem() throws Exception {
        Path classes = compile("advanced-scenarios/jms-example-message-browser", PGAQ_FACTORY_UNCHECKED);
        fresh("test-queue", false);
        try (Child producer = run(classes, "example.browser.Producer")) {
            assertEquals(0, producer.finish(), producer.output());
        }
        try (Child browser = run(classes, "example.browser.Browser")) {
            assertEquals(0, browser.finish(), browser.output());
            assertEquals(100, matching(browser, "Browsing: .*").size(), browser.output());
            assertEquals(Collections.emptyList(), matching(browser, "Caught exception!"));
        }
        assertEquals(100, browse(null));
    }

    /** jms-example-temp-destinations: ProducerRequestReply sends a request naming a temporary
     *  queue as JMSReplyTo; Consumer, in another JVM, replies there; the reply comes to the
     *  producer's listener within the two seconds it waits. */
    @Test
    void aRequestGetsItsReplyOnATemporaryQueue() throws Exception {
        Path classes = compile("advanced-scenarios/jms-example-temp-destinations", PGAQ_FACTORY_UNCHECKED);
        fresh("test-queue", false);
        try (Child consumer = run(classes, "example.tempdest.Consumer")) {
            assertTrue(consumer.awaitLine(l -> l.startsWith("Waiting to receive messages"), 60_000));
            try (Child producer = run(classes, "example.tempdest.ProducerRequestReply")) {
                assertEquals(0, producer.finish(), producer.output());
                assertTrue(producer.lines().contains("*** REPLY *** "), producer.output());
                assertEquals(Collections.emptyList(), matching(producer, "Caught exception!"));
            }
            assertEquals(0, consumer.finish(), consumer.output());
            assertEquals(Collections.singletonList("Got 0. message: I need a response for this, please"),
                    matching(consumer, "Got .*"));
            assertEquals(Collections.emptyList(), matching(consumer, "Caught exception!"));
        }
    }

    /** jms-example-topic: Subscriber (a listener on topic test-topic) prints the 100 messages
     *  Publisher publishes, then ends at END. */
    @Test
    void topicSubscriberGetsWhatThePublisherPublishes() throws Exception {
        Path classes = compile("advanced-scenarios/jms-example-topic", PGAQ_FACTORY_UNCHECKED);
        fresh("test-topic", true);
        try (Child subscriber = run(classes, "example.topic.Subscriber")) {
            untilSubscribed(subscriber, "test-topic", "Received message:");
            try (Child publisher = run(classes, "example.topic.Publisher")) {
                assertEquals(0, publisher.finish(), publisher.output());
            }
            assertEquals(0, subscriber.finish(), subscriber.output());
            assertEquals(messages(0, 100, 1, "Received message:Message #%d"),
                    matching(subscriber, "Received message:Message.*"));
            assertTrue(subscriber.lines().contains("Received END message!"));
        }
    }

    /** jms-example-durable-sub, as its readme runs it: "You can kill the subscriber at any
     *  point and it will not miss messages because the subscription it creates is durable".
     *  The subscriber (-DclientId, its subscription's name) is killed once subscribed,
     *  Publisher publishes while it is away, and the subscriber started again gets it all. */
    @Test
    void aDurableSubscriberKilledAndStartedAgainMissesNothing() throws Exception {
        Path classes = compile("advanced-scenarios/jms-example-durable-sub", PGAQ_FACTORY_UNCHECKED);
        fresh("test-topic", true);
        List<String> clientId = Collections.singletonList("-DclientId=example_client");
        try (Child first = new Child(classes, "example.topic.durable.Subscriber", clientId)) {
            untilSubscribed(first, "test-topic", "Received message:");
            first.process.destroy();  // the readme's "kill the subscriber"
            assertTrue(first.process.waitFor(60, TimeUnit.SECONDS));
        }
        try (Child publisher = run(classes, "example.topic.durable.Publisher")) {
            assertEquals(0, publisher.finish(), publisher.output());
        }
        try (Child again = new Child(classes, "example.topic.durable.Subscriber", clientId)) {
            assertEquals(0, again.finish(), again.output());
            assertEquals(messages(0, 100, 1, "Received message:Message #%d"),
                    matching(again, "Received message:Message.*"));
            assertTrue(again.lines().contains("Received END message!"));
        }
    }

    /** jms-example-transaction: lines typed are sent in a transacted session; COMMIT delivers
     *  them to the same program's listener on topic transacted.client.example, ROLLBACK
     *  drops them. (The program ends when its input ends: Scanner.nextLine then throws, and it
     *  prints "Caught exception!", its own way out.) */
    @Test
    void committedLinesArriveAndRolledBackOnesDoNot() throws Exception {
        Path classes = compile("advanced-scenarios/jms-example-transaction", PGAQ_FACTORY_UNCHECKED);
        fresh("transacted.client.example", true);
        try (Child client = run(classes, "example.transaction.Client")) {
            assertTrue(client.awaitLine(l -> l.startsWith("Type a message."), 60_000), client.output());
            OutputStream in = client.stdin();
            in.write("first\nsecond\nCOMMIT\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertTrue(client.awaitLine("We received a new message: second"::equals, 60_000), client.output());
            in.write("third\nROLLBACK\nfourth\nCOMMIT\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            assertTrue(client.awaitLine("We received a new message: fourth"::equals, 60_000), client.output());
            in.close();
            assertEquals(0, client.finish(), client.output());
            assertEquals(Arrays.asList("We received a new message: first", "We received a new message: second",
                    "We received a new message: fourth"), matching(client, "We received .*"));
            assertTrue(client.lines().contains("Messages have been rolledback"));
        }
    }

    // -- the examples that cannot run unchanged -----------------------------------------------------

    @Test
    void compositeDestinations() {
        Assumptions.abort("jms-example-composite-destinations: its Producer sends to the ActiveMQ composite "
                + "destination \"test-queue,test-queue-foo,test-queue-bar,topic://test-topic-foo\" (one send "
                + "to three queues and a topic); pgaq takes a destination name as one queue's");
    }

    @Test
    void exclusiveConsumer() {
        Assumptions.abort("jms-example-exclusive-consumer: its Consumer reads \"test-queue?consumer.exclusive=true\","
                + " an ActiveMQ destination option in the name; pgaq has no exclusive consumers (AQ consumers of "
                + "a queue share it) and takes the whole text as a queue's name");
    }

    @Test
    void wildcardConsumer() {
        Assumptions.abort("jms-example-wildcard-consumer: its Client subscribes to topicName + \".*\" (or the "
                + "-Dwildcard given), an ActiveMQ wildcard over a hierarchy of topics; pgaq topics are single "
                + "queues, with no wildcard subscriptions");
    }
}
