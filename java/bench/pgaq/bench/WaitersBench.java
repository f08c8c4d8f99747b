package pgaq.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import javax.jms.BytesMessage;
import javax.jms.Connection;
import javax.jms.JMSException;
import javax.jms.Session;
import pgaq.jms.AQjmsFactory;
import pgaq.jms.AQjmsSession;

/**
 * The fan-out bench's Java waiters (bench/fanout_bench.py, W4): {@code waiters}
 * AUTO_ACKNOWLEDGE sessions of one Connection, each with a MessageListener on one RAW queue,
 * as W3's Python pgaq.jms listeners. First {@code warm} messages go through them from a
 * producer of its own, one at a time, so that the JIT has compiled a message's path before
 * the clock; they are numbered from Long.MIN_VALUE and not printed (the bench's own warm-up
 * messages, -1, -2, ..., are). Prints "ready" then, and for each message taken the number
 * in its first 8 bytes, a line each (the bench times the pickup as it reads the line); ends
 * when stdin closes.
 *
 * Usage: WaitersBench jdbcUrl schema.queue waiters safetyPollMillis warm
 */
public final class WaitersBench {
    private static final long WARM_BASE = Long.MIN_VALUE;

    private WaitersBench() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String[] queue = args[1].split("\\.", 2);
        int waiters = Integer.parseInt(args[2]);
        int warm = Integer.parseInt(args[4]);
        java.util.concurrent.Semaphore warmed = new java.util.concurrent.Semaphore(0);
        Properties p = new Properties();
        p.setProperty("pgaq.safetyPollMillis", args[3]);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        Connection c = AQjmsFactory.getConnectionFactory(url, p).createConnection();
        for (int i = 0; i < waiters; i++) {
            AQjmsSession s = (AQjmsSession) c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createConsumer(s.getQueue(queue[0], queue[1])).setMessageListener(m -> {
                try {
                    long k = ((BytesMessage) m).readLong();
                    if (k < WARM_BASE / 2) {  // its own warm-up's (the bench's are -1, -2, ...)
                        warmed.release();
                        return;
                    }
                    synchronized (out) {
                        out.println(k);
                        out.flush();
                    }
                } catch (JMSException e) {
                    throw new RuntimeException(e);
                }
            });
        }
        c.start();
        AQjmsSession ps = (AQjmsSession) c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        javax.jms.MessageProducer producer = ps.createProducer(ps.getQueue(queue[0], queue[1]));
        for (int i = 0; i < warm; i++) {
            BytesMessage m = ps.createBytesMessage();
            m.writeLong(WARM_BASE + i);
            producer.send(m);
            if (!warmed.tryAcquire(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("warm-up message " + i + " not taken in 30 s");
            }
        }
        ps.close();
        synchronized (out) {
            out.println("ready");
            out.flush();
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (in.readLine() != null) {
            // (nothing is sent: the bench closes stdin to stop)
        }
        c.close();
    }
}
