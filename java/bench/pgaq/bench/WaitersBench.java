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
 * The fan-out bench's Java waiters (bench/fanout_bench.py, W4): {@code waiters} AUTO_ACKNOWLEDGE
 * sessions of one Connection, each with a MessageListener on one RAW queue, as W3's Python
 * pgaq.jms listeners. Prints "ready" once the Connection is started, then, for each message
 * taken, the number in its first 8 bytes, a line each (the bench times the pickup as it
 * reads the line); ends when stdin closes.
 *
 * Usage: WaitersBench jdbcUrl schema.queue waiters safetyPollMillis
 */
public final class WaitersBench {
    private WaitersBench() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String[] queue = args[1].split("\\.", 2);
        int waiters = Integer.parseInt(args[2]);
        Properties p = new Properties();
        p.setProperty("pgaq.safetyPollMillis", args[3]);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        Connection c = AQjmsFactory.getConnectionFactory(url, p).createConnection();
        for (int i = 0; i < waiters; i++) {
            AQjmsSession s = (AQjmsSession) c.createSession(false, Session.AUTO_ACKNOWLEDGE);
            s.createConsumer(s.getQueue(queue[0], queue[1])).setMessageListener(m -> {
                try {
                    long k = ((BytesMessage) m).readLong();
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
