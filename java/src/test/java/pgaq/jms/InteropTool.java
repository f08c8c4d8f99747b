package pgaq.jms;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.jms.Connection;
import javax.jms.DeliveryMode;
import javax.jms.Destination;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Session;

/**
 * Golden messages through the real provider, for tests/java/test_java_interop.py's live
 * round trips between Java, pgaq.jms, IDAP and dbms_aq (one JVM for a whole batch):
 *
 * <pre>
 *   java -Dpgaq.jdbc.url=URL -cp "$(java/build classpath)" pgaq.jms.InteropTool send QUEUE CASES.json
 *   java -Dpgaq.jdbc.url=URL -cp ... pgaq.jms.InteropTool receive [--compliant] [--receiver NAME] QUEUE N ...
 * </pre>
 *
 * {@code send} builds each case of CASES.json (a list of golden cases, or the golden file)
 * from its "send" description (GoldenMessages.build) and sends it to QUEUE ("owner.name"),
 * or to the case's own "queue" or "topic" when it names one, and prints one JSON list:
 * {name, message_id} per case, or {name, error} for a send refused. The case's "priority" is
 * the AQ priority: JMSPriority is that in Oracle's default, non-compliant mode, and 9 - that
 * on a Java EE compliant connection, which a case whose "received" says j2ee_compliant is
 * sent through; time_to_live and delivery_mode as the case says (PERSISTENT by default).
 * A reply-to queue or topic is the named destination, whether or not it exists.
 *
 * <p>{@code receive} receives N messages from QUEUE (then from the next QUEUE N group), a
 * group's options before it: --compliant on a Java EE compliant connection, --receiver NAME
 * as the topic receiver NAME of recipient lists (QUEUE a topic). It prints one JSON list:
 * per message its description in the form of a golden case's "received"
 * (GoldenMessages.describe) with "message_id" and "queue" added. A message not received
 * within pgaq.interop.timeoutMillis (default 10000) ends it with exit status 1, what was
 * received printed.
 *
 * <p>The JDBC URL is the system property pgaq.jdbc.url or the environment's PGAQ_JDBC_URL.
 * Output is JSON with every character beyond ASCII escaped, whatever the console's encoding.
 */
public final class InteropTool {
    private final String url;
    private final Map<Boolean, Connection> connections = new LinkedHashMap<>();
    private final Map<Boolean, Session> sessions = new LinkedHashMap<>();

    private InteropTool(String url) {
        this.url = url;
    }

    public static void main(String[] args) throws Exception {
        String url = System.getProperty("pgaq.jdbc.url", "");
        if (url.isEmpty()) {
            url = System.getenv().getOrDefault("PGAQ_JDBC_URL", "");
        }
        if (url.isEmpty() || args.length < 1) {
            usage("no JDBC URL (pgaq.jdbc.url, PGAQ_JDBC_URL) or no command");
        }
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        InteropTool tool = new InteropTool(url);
        int status = 0;
        try {
            List<Object> result = new ArrayList<>();
            switch (args[0]) {
                case "send":
                    if (args.length != 3) {
                        usage("send QUEUE CASES.json");
                    }
                    tool.send(args[1], args[2], result);
                    break;
                case "receive":
                    status = tool.receive(Arrays.asList(args).subList(1, args.length), result);
                    break;
                default:
                    usage("unknown command " + args[0]);
            }
            out.println(GoldenMessages.asciiJson(result));
        } finally {
            tool.close();
        }
        System.exit(status);
    }

    private static void usage(String why) {
        System.err.println("InteropTool: " + why + "\nusage: InteropTool send QUEUE CASES.json\n"
                + "       InteropTool receive [--compliant] [--receiver NAME] QUEUE N ...");
        System.exit(2);
    }

    private Session session(boolean compliant) throws JMSException {
        Session s = sessions.get(compliant);
        if (s == null) {
            Properties p = new Properties();
            p.setProperty("pgaq.j2eeCompliant", Boolean.toString(compliant));
            Connection c = AQjmsFactory.getConnectionFactory(url, p).createConnection();
            connections.put(compliant, c);
            s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            sessions.put(compliant, s);
        }
        return s;
    }

    private void close() throws JMSException {
        for (Connection c : connections.values()) {
            c.close();
        }
    }

    private static String[] split(String qualified) {
        int dot = qualified.indexOf('.');
        if (dot <= 0) {
            throw new IllegalArgumentException("not owner.name: " + qualified);
        }
        return new String[] {qualified.substring(0, dot), qualified.substring(dot + 1)};
    }

    // -- send -----------------------------------------------------------------------------------
    private void send(String queue, String casesFile, List<Object> result) throws JMSException {
        Object data = Json.parse(new String(readAll(casesFile), StandardCharsets.UTF_8));
        List<Object> cases = data instanceof Map ? GoldenMessages.list(GoldenMessages.map(data).get("cases"))
                : GoldenMessages.list(data);
        for (Object o : cases) {
            Map<String, Object> c = GoldenMessages.map(o);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("name", c.get("name"));
            try {
                row.put("message_id", sendCase(c, queue));
            } catch (JMSException | RuntimeException e) {
                String code = e instanceof JMSException ? ((JMSException) e).getErrorCode() : null;
                row.put("error", (code == null ? "" : code + ": ") + e);
            }
            result.add(row);
        }
    }

    private static byte[] readAll(String file) {
        try {
            return java.nio.file.Files.readAllBytes(Paths.get(file));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read " + file, e);
        }
    }

    private String sendCase(Map<String, Object> c, String queue) throws JMSException {
        Map<String, Object> send = GoldenMessages.map(c.get("send"));
        Object received = c.get("received");
        boolean compliant = received != null
                && Boolean.TRUE.equals(GoldenMessages.map(received).get("j2ee_compliant"));
        Session s = session(compliant);
        AQjmsSession aq = (AQjmsSession) s;
        Destination dest;
        if (c.get("topic") != null) {
            String[] n = split((String) c.get("topic"));
            dest = aq.getTopic(n[0], n[1]);
        } else {
            String[] n = split(c.get("queue") != null ? (String) c.get("queue") : queue);
            dest = aq.getQueue(n[0], n[1]);
        }
        // a reply-to as the case names it, "OWNER.NAME", as an application's handle has it
        AQjmsMessage m = GoldenMessages.build(send, (qualified, topic) -> {
            String[] n = split(qualified);
            return AQjmsDestination.of(n[0], n[1], topic);
        });
        Object p = send.get("priority");
        int aqPriority = p == null ? 1 : GoldenMessages.integer(p);
        Object ttl = send.get("time_to_live");
        int mode = "NON_PERSISTENT".equals(send.get("delivery_mode"))
                ? DeliveryMode.NON_PERSISTENT : DeliveryMode.PERSISTENT;
        MessageProducer producer = s.createProducer(dest);
        try {
            producer.send(m, mode, compliant ? 9 - aqPriority : aqPriority,
                    ttl == null ? 0 : ((Number) ttl).longValue());
        } finally {
            producer.close();
        }
        return m.getJMSMessageID();
    }

    // -- receive --------------------------------------------------------------------------------
    private int receive(List<String> args, List<Object> result) throws JMSException {
        long timeout = Long.getLong("pgaq.interop.timeoutMillis", 10_000L);
        boolean compliant = false;
        String receiver = null;
        int i = 0;
        if (args.isEmpty()) {
            usage("receive [--compliant] [--receiver NAME] QUEUE N ...");
        }
        while (i < args.size()) {
            String a = args.get(i);
            if (a.equals("--compliant")) {
                compliant = true;
                i++;
                continue;
            }
            if (a.equals("--receiver") && i + 1 < args.size()) {
                receiver = args.get(i + 1);
                i += 2;
                continue;
            }
            if (i + 1 >= args.size()) {
                usage("QUEUE without N: " + a);
            }
            int n = Integer.parseInt(args.get(i + 1));
            i += 2;
            Session s = session(compliant);
            AQjmsSession aq = (AQjmsSession) s;
            String[] name = split(a);
            connections.get(compliant).start();
            MessageConsumer consumer = receiver != null
                    ? aq.createTopicReceiver(aq.getTopic(name[0], name[1]), receiver, null)
                    : s.createConsumer(aq.getQueue(name[0], name[1]));
            try {
                for (int k = 0; k < n; k++) {
                    Message got = consumer.receive(timeout);
                    if (got == null) {
                        System.err.println("InteropTool: " + k + " of " + n + " messages received from "
                                + a + " within " + timeout + " ms");
                        return 1;
                    }
                    Map<String, Object> d = new LinkedHashMap<>();
                    d.put("message_id", got.getJMSMessageID());
                    d.put("queue", a);
                    d.putAll(GoldenMessages.describe((AQjmsMessage) got));
                    result.add(d);
                }
            } finally {
                consumer.close();
            }
            compliant = false;
            receiver = null;
        }
        return 0;
    }
}
