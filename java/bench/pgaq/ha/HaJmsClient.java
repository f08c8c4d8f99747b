package pgaq.ha;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import pgaq.jms.AQjmsConnection;
import pgaq.jms.AQjmsFactory;
import pgaq.jms.AQjmsSession;

/**
 * The Java JMS application of the failover run ({@code python -m ha}, ha/load.py): one
 * AQjmsConnection with an ExceptionListener, a MessageListener (AUTO_ACKNOWLEDGE) on the
 * queue and a producer session sending TextMessages, each text a unique id, at a steady
 * rate. It is never made again: like an application, it relies on the provider to go on
 * after the database changes hands.
 *
 * <pre>
 * java pgaq.ha.HaJmsClient JDBC_URL OWNER QUEUE RATE
 * </pre>
 *
 * <p>One line per event on stdout: {@code READY} once the listener runs, {@code SENT id}
 * after send() returned, {@code UNSURE id} when send() threw (its fate unknown: the next
 * send, after a short pause, has a new id, as an application would do), {@code GOT id 0|1}
 * in the listener (1: JMSRedelivered), {@code EXC millis} in the ExceptionListener
 * (System.currentTimeMillis), {@code PAUSED} once sending stopped after {@code pause} on
 * stdin. {@code stop} on stdin, or its end, closes the connection and exits. Every line
 * ends with the {@code System.nanoTime()} of its event.
 */
public final class HaJmsClient {
    private static final PrintStream OUT = System.out;

    private HaJmsClient() {
    }

    private static void emit(String line) {
        // every line ends with System.nanoTime(): CLOCK_MONOTONIC on Linux, the clock of
        // Python's time.monotonic(), so the run times Java's sends and receipts as its own
        long at = System.nanoTime();
        synchronized (OUT) {
            OUT.println(line + " " + at);
            OUT.flush();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: java pgaq.ha.HaJmsClient JDBC_URL OWNER QUEUE RATE");
            System.exit(2);
        }
        String url = args[0];
        String owner = args[1];
        String name = args[2];
        long gapNanos = (long) (1e9 / Double.parseDouble(args[3]));

        AQjmsConnection c = (AQjmsConnection) AQjmsFactory.getConnectionFactory(url, new Properties())
                .createConnection();
        c.setExceptionListener(e -> emit("EXC " + System.currentTimeMillis()));
        AQjmsSession consumerSession = (AQjmsSession) c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        MessageConsumer consumer = consumerSession.createConsumer(consumerSession.getQueue(owner, name));
        consumer.setMessageListener(m -> {
            try {
                emit("GOT " + ((TextMessage) m).getText() + " " + (m.getJMSRedelivered() ? 1 : 0));
            } catch (JMSException e) {
                // a local message's text and flag: reading them does not fail
                throw new IllegalStateException(e);
            }
        });
        c.start();
        AQjmsSession producerSession = (AQjmsSession) c.createSession(false, Session.AUTO_ACKNOWLEDGE);
        Queue queue = producerSession.getQueue(owner, name);
        MessageProducer producer = producerSession.createProducer(queue);

        Object monitor = new Object();
        boolean[] paused = {false};
        Thread sender = new Thread(() -> {
            long n = 0;
            long due = System.nanoTime();
            while (true) {
                synchronized (monitor) {
                    if (paused[0]) {
                        return;
                    }
                }
                // paced: at most a second's worth of catching up after a stall
                due = Math.max(due + gapNanos, System.nanoTime() - TimeUnit.SECONDS.toNanos(1));
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    synchronized (monitor) {
                        try {
                            if (!paused[0]) {
                                TimeUnit.NANOSECONDS.timedWait(monitor, wait);
                            }
                        } catch (InterruptedException e) {
                            return;
                        }
                        if (paused[0]) {
                            return;
                        }
                    }
                }
                String id = String.format("v%08d", n++);
                try {
                    Message m = producerSession.createTextMessage(id);
                    producer.send(m);
                } catch (JMSException | RuntimeException e) {
                    emit("UNSURE " + id);
                    try {
                        Thread.sleep(100);  // the database is changing hands: don't spin
                    } catch (InterruptedException ie) {
                        return;
                    }
                    continue;
                }
                emit("SENT " + id);
            }
        }, "ha-sender");
        sender.start();
        emit("READY");

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        boolean stopping = false;
        while (!stopping) {
            try {
                line = in.readLine();
            } catch (IOException e) {
                line = null;
            }
            if (line == null || line.trim().equals("stop")) {
                stopping = true;
            }
            if (stopping || line.trim().equals("pause")) {
                synchronized (monitor) {
                    paused[0] = true;
                    monitor.notifyAll();
                }
                sender.join();  // after its send in progress, if any
                emit("PAUSED");
            }
        }
        c.close();
        emit("CLOSED");
    }
}
