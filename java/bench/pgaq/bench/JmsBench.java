package pgaq.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.jms.Connection;
import javax.jms.ConnectionFactory;
import javax.jms.DeliveryMode;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;

/**
 * The Java JMS benchmark driver: one scenario against one provider, one JSON line on stdout.
 *
 * <pre>
 * java pgaq.bench.JmsBench --provider activemq|pgaq --url URL --scenario S --queue Q
 *     [--threads 4] [--seconds 2.5] [--warmup 1] [--fill 0] [--rounds 60]
 *     [--user U] [--password P] [--prop NAME=VALUE]... [--cpu NAME=PID]...
 * </pre>
 *
 * <p>Providers: {@code activemq} (URL tcp://127.0.0.1:PORT, ActiveMQ's client with its
 * defaults) or {@code pgaq} (a JDBC URL, {@code AQjmsFactory.getConnectionFactory(url, info)}
 * with {@code info} holding user and password). Queue names for pgaq are schema.queue.
 *
 * <p>Scenarios, every message a PERSISTENT TextMessage of 100 characters with one string
 * property:
 * <ul>
 * <li>{@code send}: {@code threads} producers, each on its own Connection and non-transacted
 *   AUTO_ACKNOWLEDGE Session, send one message per call (one transaction each) until the
 *   deadline; after a warm-up of the same.
 * <li>{@code consume}: {@code threads} consumers, each on its own Connection and AUTO_ACKNOWLEDGE
 *   Session, loop {@code receive(1000)} one message at a time until the deadline or the queue
 *   is empty (a null receive: "dry"). Each Connection is started when the clock starts, so a
 *   provider's prefetch is inside the window.
 * <li>{@code transacted}: as consume, in transacted Sessions committing every 10 messages
 *   (and what is left at the end).
 * <li>{@code wakeup}: a MessageListener (AUTO_ACKNOWLEDGE) on an empty queue; another
 *   Connection's producer sends one message {@code rounds} times, 10-20 ms after the
 *   previous delivery; milliseconds from send() returning to onMessage being called
 *   (negative: the listener had it before send() returned). 5 unrecorded rounds first.
 * <li>{@code fill}: {@code fill} messages sent by {@code threads} transacted sessions, 500
 *   per commit (no figure; consume and transacted take {@code --fill} too, before the
 *   warm-up).
 * </ul>
 *
 * <p>CPU: the JVM's own process CPU time (com.sun.management.OperatingSystemMXBean) over the
 * measured window only, and for each {@code --cpu NAME=PID} the CPU of that process and its
 * children from /proc (utime+stime of the process and every live child, plus the process's
 * cutime+cstime: its reaped children's), read at the same window's ends.
 *
 * <p>A provider that cannot connect (the factory or createConnection throws) prints
 * {@code {"scenario":..., "error": "..."}} and exits 3.
 */
public final class JmsBench {
    static final String TEXT = repeat('x', 100);

    final Map<String, String> opts;
    final String provider;
    final String url;
    final String scenario;
    final String queue;
    final int threads;
    final double seconds;
    final double warmup;
    final int fill;
    final int rounds;
    final Map<String, Integer> cpuPids = new LinkedHashMap<>();
    /** pgaq's factory info beside user and password (--prop NAME=VALUE, repeatable). */
    final Properties props = new Properties();
    final long clkTck;
    ConnectionFactory factory;

    JmsBench(Map<String, String> opts, List<String> cpu) {
        this.opts = opts;
        provider = req(opts, "provider");
        url = req(opts, "url");
        scenario = req(opts, "scenario");
        queue = req(opts, "queue");
        threads = Integer.parseInt(opts.getOrDefault("threads", "4"));
        seconds = Double.parseDouble(opts.getOrDefault("seconds", "2.5"));
        warmup = Double.parseDouble(opts.getOrDefault("warmup", "1"));
        fill = Integer.parseInt(opts.getOrDefault("fill", "0"));
        rounds = Integer.parseInt(opts.getOrDefault("rounds", "60"));
        clkTck = Long.parseLong(opts.getOrDefault("clk-tck", "100"));
        for (String c : cpu) {
            int colon = c.indexOf(':');
            int eq = c.indexOf('=');
            if (c.startsWith("prop:")) {
                props.setProperty(c.substring(colon + 1, eq), c.substring(eq + 1));
            } else {
                cpuPids.put(c.substring(colon + 1, eq), Integer.valueOf(c.substring(eq + 1)));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        List<String> cpu = new ArrayList<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option value, got " + args[i]);
            }
            String k = args[i].substring(2);
            if (k.equals("cpu") || k.equals("prop")) {
                cpu.add(k + ":" + args[i + 1]);
            } else {
                opts.put(k, args[i + 1]);
            }
        }
        JmsBench b = new JmsBench(opts, cpu);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scenario", b.scenario);
        out.put("provider", b.provider);
        out.put("queue", b.queue);
        out.put("threads", b.threads);
        try {
            b.factory = b.connectionFactory();
            b.probe();
        } catch (Exception e) {
            out.put("error", describe(e));
            System.out.println(json(out));
            System.out.flush();
            System.exit(3);
        }
        try {
            switch (b.scenario) {
                case "send":
                    b.send(out);
                    break;
                case "consume":
                    b.consume(out, false);
                    break;
                case "transacted":
                    b.consume(out, true);
                    break;
                case "wakeup":
                    b.wakeup(out);
                    break;
                case "fill":
                    b.fillQueue(b.fill);
                    out.put("filled", b.fill);
                    break;
                default:
                    throw new IllegalArgumentException("unknown scenario " + b.scenario);
            }
        } catch (Exception e) {
            out.put("error", describe(e));
            System.out.println(json(out));
            System.out.flush();
            System.exit(4);
        }
        System.out.println(json(out));
        System.out.flush();
        System.exit(0);  // a provider's non-daemon threads must not keep the JVM
    }

    // -- providers -----------------------------------------------------------------------

    ConnectionFactory connectionFactory() throws JMSException {
        switch (provider) {
            case "activemq":
                return new org.apache.activemq.ActiveMQConnectionFactory(url);
            case "pgaq": {
                Properties info = new Properties();
                info.putAll(props);
                if (opts.containsKey("user")) {
                    info.setProperty("user", opts.get("user"));
                }
                if (opts.containsKey("password")) {
                    info.setProperty("password", opts.get("password"));
                }
                return pgaq.jms.AQjmsFactory.getConnectionFactory(url, info);
            }
            default:
                throw new IllegalArgumentException("unknown provider " + provider);
        }
    }

    /** One Connection opened and closed: a provider that cannot connect fails here. */
    void probe() throws JMSException {
        Connection c = factory.createConnection();
        try {
            Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            queue(s);
            s.close();
        } finally {
            c.close();
        }
    }

    /** The queue: Session.createQueue(name); for pgaq "schema.queue", and when the provider
     *  refuses that, Oracle's AQjmsSession.getQueue(schema, queue) (by reflection). */
    Queue queue(Session s) throws JMSException {
        try {
            return s.createQueue(queue);
        } catch (JMSException e) {
            int dot = queue.indexOf('.');
            if (dot < 0) {
                throw e;
            }
            try {
                Method m = s.getClass().getMethod("getQueue", String.class, String.class);
                return (Queue) m.invoke(s, queue.substring(0, dot), queue.substring(dot + 1));
            } catch (ReflectiveOperationException r) {
                e.addSuppressed(r);
                throw e;
            }
        }
    }

    static TextMessage message(Session s) throws JMSException {
        TextMessage m = s.createTextMessage(TEXT);
        m.setStringProperty("region", "EU");
        return m;
    }

    // -- send ----------------------------------------------------------------------------

    void send(Map<String, Object> out) throws Exception {
        List<Connection> conns = new ArrayList<>();
        List<Session> sessions = new ArrayList<>();
        List<MessageProducer> producers = new ArrayList<>();
        try {
            for (int i = 0; i < threads; i++) {
                Connection c = factory.createConnection();
                conns.add(c);
                Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
                sessions.add(s);
                MessageProducer p = s.createProducer(queue(s));
                p.setDeliveryMode(DeliveryMode.PERSISTENT);
                producers.add(p);
            }
            if (warmup > 0) {
                sendFor(sessions, producers, warmup, null);
            }
            List<Long> lat = Collections.synchronizedList(new ArrayList<Long>());
            Window w = new Window();
            long n = sendFor(sessions, producers, seconds, lat);
            w.end();
            w.put(out, n);
            putLatency(out, "send", lat);
        } finally {
            closeAll(conns);
        }
    }

    long sendFor(List<Session> sessions, List<MessageProducer> producers, double secs,
            List<Long> lat) throws Exception {
        AtomicLong count = new AtomicLong();
        long deadline = System.nanoTime() + (long) (secs * 1e9);
        runThreads(sessions.size(), i -> {
            Session s = sessions.get(i);
            MessageProducer p = producers.get(i);
            List<Long> mine = new ArrayList<>();
            long t;
            while ((t = System.nanoTime()) < deadline) {
                p.send(message(s));
                mine.add(System.nanoTime() - t);
            }
            count.addAndGet(mine.size());
            if (lat != null) {
                lat.addAll(mine);
            }
        });
        return count.get();
    }

    // -- consume, transacted -------------------------------------------------------------

    void consume(Map<String, Object> out, boolean transacted) throws Exception {
        if (fill > 0) {
            fillQueue(fill);
        }
        if (warmup > 0) {
            consumeFor(warmup, transacted, new Window[1]);
        }
        Window[] w = new Window[1];
        long[] r = consumeFor(seconds, transacted, w);
        w[0].seconds = r[1] / 1e9;  // to the last acknowledgement or commit
        w[0].put(out, r[0]);
        out.put("dry", r[2] != 0);
        out.put("commit_every", transacted ? 10 : 0);
    }

    /** Consumers for {@code secs}: {messages, nanoseconds to the last ack/commit, dry}; the
     *  CPU window in {@code window[0]}, from after the consumers' set-up to their end. */
    long[] consumeFor(double secs, boolean transacted, Window[] window) throws Exception {
        List<Connection> conns = new ArrayList<>();
        List<Session> sessions = new ArrayList<>();
        List<MessageConsumer> consumers = new ArrayList<>();
        AtomicLong count = new AtomicLong();
        AtomicLong lastDone = new AtomicLong();
        AtomicBoolean dry = new AtomicBoolean();
        try {
            int mode = transacted ? Session.SESSION_TRANSACTED : Session.AUTO_ACKNOWLEDGE;
            for (int i = 0; i < threads; i++) {
                Connection c = factory.createConnection();
                conns.add(c);
                Session s = c.createSession(transacted, mode);
                sessions.add(s);
                consumers.add(s.createConsumer(queue(s)));
            }
            window[0] = new Window();
            long start = System.nanoTime();
            long deadline = start + (long) (secs * 1e9);
            runThreads(threads, i -> {
                conns.get(i).start();
                Session s = sessions.get(i);
                MessageConsumer mc = consumers.get(i);
                long mine = 0;
                long pending = 0;
                long done = 0;
                while (System.nanoTime() < deadline) {
                    Message m = mc.receive(1000);  // AUTO_ACKNOWLEDGE: acknowledged on return
                    if (m == null) {
                        dry.set(true);
                        break;
                    }
                    mine++;
                    if (transacted && ++pending == 10) {
                        s.commit();
                        pending = 0;
                    }
                    if (pending == 0) {
                        done = System.nanoTime();
                    }
                }
                if (pending > 0) {
                    s.commit();
                    done = System.nanoTime();
                }
                if (mine > 0) {
                    lastDone.accumulateAndGet(done - start, Math::max);
                }
                count.addAndGet(mine);
            });
            window[0].end();
            // a consumer that got nothing (the queue was empty) ends no window of its own
            return new long[] {count.get(), Math.max(lastDone.get(), 1), dry.get() ? 1 : 0};
        } finally {
            closeAll(conns);
        }
    }

    /** {@code n} messages from {@code threads} transacted sessions, 500 per commit. */
    void fillQueue(int n) throws Exception {
        long t0 = System.nanoTime();
        List<Connection> conns = new ArrayList<>();
        AtomicLong left = new AtomicLong(n);
        try {
            for (int i = 0; i < threads; i++) {
                conns.add(factory.createConnection());
            }
            runThreads(threads, i -> {
                Session s = conns.get(i).createSession(true, Session.SESSION_TRANSACTED);
                MessageProducer p = s.createProducer(queue(s));
                p.setDeliveryMode(DeliveryMode.PERSISTENT);
                long k;
                while ((k = Math.min(500, left.getAndAdd(-500))) > 0) {
                    for (long j = 0; j < k; j++) {
                        p.send(message(s));
                    }
                    s.commit();
                }
            });
        } finally {
            closeAll(conns);
        }
        System.err.printf(Locale.ROOT, "filled %s with %d messages in %.1f s%n", queue, n,
                (System.nanoTime() - t0) / 1e9);
    }

    // -- wake-up -------------------------------------------------------------------------

    void wakeup(Map<String, Object> out) throws Exception {
        Connection listening = factory.createConnection();
        Connection sending = factory.createConnection();
        try {
            BlockingQueue<Long> called = new ArrayBlockingQueue<>(16);
            Session ls = listening.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer mc = ls.createConsumer(queue(ls));
            mc.setMessageListener(m -> called.offer(System.nanoTime()));
            listening.start();
            Session ss = sending.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer p = ss.createProducer(queue(ss));
            p.setDeliveryMode(DeliveryMode.PERSISTENT);
            int warm = 5;
            List<Long> fromReturn = new ArrayList<>();
            List<Long> fromCall = new ArrayList<>();
            Window w = null;
            for (int i = 0; i < warm + rounds; i++) {
                if (i == warm) {
                    w = new Window();
                }
                Thread.sleep(ThreadLocalRandom.current().nextLong(10, 21));
                TextMessage m = message(ss);
                long t0 = System.nanoTime();
                p.send(m);
                long t1 = System.nanoTime();
                Long t2 = called.poll(30, TimeUnit.SECONDS);
                if (t2 == null) {
                    throw new IllegalStateException("no onMessage 30 s after send " + i);
                }
                if (i >= warm) {
                    fromReturn.add(t2 - t1);
                    fromCall.add(t2 - t0);
                }
            }
            w.end();
            w.put(out, rounds);
            putLatency(out, "wake", fromReturn);
            List<Double> ms = new ArrayList<>();
            for (long x : fromReturn) {
                ms.add(round(x / 1e6, 4));
            }
            out.put("wake_ms", ms);
            putLatency(out, "wake_from_send_call", fromCall);
            long early = 0;
            for (long x : fromReturn) {
                early += x < 0 ? 1 : 0;
            }
            out.put("delivered_before_send_returned", early);
        } finally {
            closeAll(Arrays.asList(sending, listening));
        }
    }

    // -- measurement ---------------------------------------------------------------------

    /** A measured window: wall time, this JVM's CPU, and the CPU of the --cpu processes. */
    final class Window {
        final long t0 = System.nanoTime();
        final long cpu0 = processCpuNanos();
        final Map<String, Long> ticks0 = ticks();
        double seconds;
        long cpu;
        final Map<String, Long> ticks = new LinkedHashMap<>();

        void end() {
            seconds = (System.nanoTime() - t0) / 1e9;
            cpu = processCpuNanos() - cpu0;
            Map<String, Long> t1 = ticks();
            for (Map.Entry<String, Long> e : t1.entrySet()) {
                ticks.put(e.getKey(), e.getValue() - ticks0.getOrDefault(e.getKey(), 0L));
            }
        }

        void put(Map<String, Object> out, long msgs) {
            out.put("msgs", msgs);
            out.put("seconds", round(seconds, 4));
            out.put("msg_per_s", round(seconds > 0 ? msgs / seconds : 0, 1));
            out.put("client_cpu_s", round(cpu / 1e9, 4));
            out.put("client_cpu_us_per_msg", round(msgs > 0 ? cpu / 1e3 / msgs : 0, 1));
            Map<String, Object> cpuOut = new LinkedHashMap<>();
            for (Map.Entry<String, Long> e : ticks.entrySet()) {
                double s = e.getValue() / (double) clkTck;
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("cpu_s", round(s, 3));
                one.put("cpu_us_per_msg", round(msgs > 0 ? s * 1e6 / msgs : 0, 1));
                cpuOut.put(e.getKey(), one);
            }
            out.put("cpu", cpuOut);
        }
    }

    Map<String, Long> ticks() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> e : cpuPids.entrySet()) {
            m.put(e.getKey(), treeTicks(e.getValue()));
        }
        return m;
    }

    /** utime+stime+cutime+cstime of {@code root}, plus utime+stime of its live children. */
    static long treeTicks(int root) {
        long total = 0;
        long[] r = stat(Paths.get("/proc", Integer.toString(root), "stat"));
        if (r != null) {
            total += r[1] + r[2] + r[3] + r[4];
        }
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Paths.get("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                long[] c = stat(p.resolve("stat"));
                if (c != null && c[0] == root) {
                    total += c[1] + c[2];
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return total;
    }

    /** {ppid, utime, stime, cutime, cstime} from a /proc/PID/stat, null if it is gone. */
    static long[] stat(Path p) {
        String s;
        try {
            s = new String(Files.readAllBytes(p), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return null;
        }
        String[] f = s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] state, f[1] ppid, f[11] utime, f[12] stime, f[13] cutime, f[14] cstime
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]), Long.parseLong(f[12]),
            Long.parseLong(f[13]), Long.parseLong(f[14])};
    }

    static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    static void putLatency(Map<String, Object> out, String name, List<Long> nanos) {
        List<Long> xs = new ArrayList<>(nanos);
        Collections.sort(xs);
        out.put(name + "_samples", xs.size());
        out.put(name + "_p50_ms", round(median(xs) / 1e6, 3));
        out.put(name + "_p99_ms", round(rank(xs, 99) / 1e6, 3));
        out.put(name + "_max_ms", round(xs.isEmpty() ? 0 : xs.get(xs.size() - 1) / 1e6, 3));
    }

    /** The median, as Python's statistics.median (bench/measure.py). */
    static double median(List<Long> sorted) {
        int n = sorted.size();
        if (n == 0) {
            return 0;
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }

    /** The p-th percentile, the nearest rank below (bench/measure.py's percentile). */
    static double rank(List<Long> sorted, double p) {
        if (sorted.isEmpty()) {
            return 0;
        }
        return sorted.get(Math.min(sorted.size() - 1, (int) (p / 100 * sorted.size())));
    }

    // -- plumbing ------------------------------------------------------------------------

    interface Body {
        void run(int i) throws Exception;
    }

    /** {@code n} threads started together; the first failure is rethrown. */
    static void runThreads(int n, Body body) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(n);
        CountDownLatch done = new CountDownLatch(n);
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<Throwable>());
        for (int i = 0; i < n; i++) {
            final int k = i;
            Thread t = new Thread(() -> {
                try {
                    barrier.await();
                    body.run(k);
                } catch (Throwable e) {
                    failures.add(e);
                } finally {
                    done.countDown();
                }
            }, "bench-" + i);
            t.setDaemon(true);
            t.start();
        }
        done.await();
        if (!failures.isEmpty()) {
            Throwable f = failures.get(0);
            if (f instanceof Exception) {
                throw (Exception) f;
            }
            throw new IllegalStateException(f);
        }
    }

    static void closeAll(List<Connection> conns) {
        for (Connection c : conns) {
            try {
                c.close();
            } catch (JMSException e) {
                // closing after the figure was taken: nothing to report
            }
        }
    }

    static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(e.toString());
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            b.append("; caused by ").append(c);
        }
        if (e instanceof JMSException && ((JMSException) e).getLinkedException() != null) {
            b.append("; linked ").append(((JMSException) e).getLinkedException());
        }
        return b.toString();
    }

    static String req(Map<String, String> opts, String k) {
        String v = opts.get(k);
        if (v == null) {
            throw new IllegalArgumentException("--" + k + " is required");
        }
        return v;
    }

    static String repeat(char c, int n) {
        char[] a = new char[n];
        Arrays.fill(a, c);
        return new String(a);
    }

    static double round(double x, int places) {
        double f = Math.pow(10, places);
        return Math.round(x * f) / f;
    }

    static String json(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Map) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (b.length() > 1) {
                    b.append(", ");
                }
                b.append(json(String.valueOf(e.getKey()))).append(": ").append(json(e.getValue()));
            }
            return b.append('}').toString();
        }
        if (v instanceof List) {
            StringBuilder b = new StringBuilder("[");
            for (Object x : (List<?>) v) {
                b.append(b.length() > 1 ? ", " : "").append(json(x));
            }
            return b.append(']').toString();
        }
        if (v instanceof Number || v instanceof Boolean) {
            if (v instanceof Double && (((Double) v).isNaN() || ((Double) v).isInfinite())) {
                return "null";
            }
            return String.valueOf(v);
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : String.valueOf(v).toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}
