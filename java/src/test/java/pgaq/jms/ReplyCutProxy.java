package pgaq.jms;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A loopback TCP proxy in front of PostgreSQL that cuts a connection at one message of the
 * server's reply, as chaos/wirecut.py does (issue 34): it reads both directions as the
 * protocol frames them (a type byte and a 4-byte length that counts itself; the one-byte
 * answer to an SSLRequest passed through). {@link #arm} makes the next connection that
 * reaches the cut (after a DataRow holding a given text) die there, both sides reset, nothing after it forwarded. No TLS.
 */
final class ReplyCutProxy implements AutoCloseable {
    /** Where to cut: before the server's first message {@code kind} with body {@code status}
     *  (null: any) after a DataRow; {@code clientNext}: that message is forwarded and the
     *  client's next one (its COMMIT) never reaches the server. */
    static final class Cut {
        final byte kind;
        final byte[] status;
        final boolean clientNext;

        Cut(char kind, String status, boolean clientNext) {
            this.kind = (byte) kind;
            this.status = status == null ? null : status.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            this.clientNext = clientNext;
        }
    }

    /** The server committed the transaction that sent rows: its ReadyForQuery says idle. */
    static final Cut COMMITTED = new Cut('Z', "I", false);
    /** The COMMIT never reached the server, which rolls the transaction back. */
    static final Cut COMMIT_LOST = new Cut('Z', "T", true);

    private final int target;
    private final ServerSocket server;
    private final AtomicReference<Cut> armed = new AtomicReference<>();
    /** Only a DataRow holding these bytes counts (a message's text, not an empty look's). */
    private volatile byte[] rowHolds = new byte[0];
    private volatile CountDownLatch fired = new CountDownLatch(1);
    private volatile boolean closed;

    ReplyCutProxy(int target) throws IOException {
        this.target = target;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "reply-cut-proxy");
        t.setDaemon(true);
        t.start();
    }

    String through(String url) {
        String direct = "//127.0.0.1:" + target + "/";
        if (!url.contains(direct)) {
            throw new IllegalArgumentException("not a URL to port " + target + ": " + url);
        }
        return url.replace(direct, "//127.0.0.1:" + server.getLocalPort() + "/");
    }

    /** Cut the next connection at {@code cut}, after a DataRow that holds {@code text}. */
    void arm(Cut cut, String text) {
        fired = new CountDownLatch(1);
        rowHolds = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        armed.set(cut);
    }

    private static boolean holds(byte[] body, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= body.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (body[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    boolean fired() {
        return fired.getCount() == 0;
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
            s.close();
        } catch (IOException ignored) {
            // gone already
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            Socket upstream = new Socket();
            try {
                client = server.accept();
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            AtomicInteger negotiating = new AtomicInteger();
            AtomicBoolean drop = new AtomicBoolean();
            thread(() -> upward(client, upstream, negotiating, drop));
            thread(() -> downward(upstream, client, negotiating, drop));
        }
    }

    private static void thread(Runnable r) {
        Thread t = new Thread(r, "reply-cut-pipe");
        t.setDaemon(true);
        t.start();
    }

    private void upward(Socket client, Socket upstream, AtomicInteger negotiating, AtomicBoolean drop) {
        try {
            DataInputStream in = new DataInputStream(client.getInputStream());
            OutputStream out = upstream.getOutputStream();
            while (true) {  // untyped startup packets: SSLRequest / GSSENCRequest, then StartupMessage
                int size = in.readInt();
                byte[] rest = new byte[size - 4];
                in.readFully(rest);
                int code = ((rest[0] & 0xff) << 24) | ((rest[1] & 0xff) << 16) | ((rest[2] & 0xff) << 8) | (rest[3] & 0xff);
                boolean negotiation = code == 80877103 || code == 80877104;
                if (negotiation) {
                    negotiating.incrementAndGet();
                }
                out.write(int4(size));
                out.write(rest);
                out.flush();
                if (!negotiation) {
                    break;
                }
            }
            while (true) {
                byte kind = in.readByte();
                int size = in.readInt();
                byte[] body = new byte[size - 4];
                in.readFully(body);
                if (drop.get()) {
                    fired.countDown();
                    return;
                }
                out.write(kind);
                out.write(int4(size));
                out.write(body);
                out.flush();
            }
        } catch (IOException ignored) {
            // either side gone
        } finally {
            reset(upstream);
            reset(client);
        }
    }

    private void downward(Socket upstream, Socket client, AtomicInteger negotiating, AtomicBoolean drop) {
        boolean row = false;
        try {
            DataInputStream in = new DataInputStream(upstream.getInputStream());
            OutputStream out = client.getOutputStream();
            while (true) {
                if (negotiating.get() > 0) {
                    negotiating.decrementAndGet();
                    out.write(in.readByte());
                    out.flush();
                    continue;
                }
                byte kind = in.readByte();
                int size = in.readInt();
                byte[] body = new byte[size - 4];
                in.readFully(body);
                Cut cut = armed.get();
                if (cut != null && row && kind == cut.kind
                        && (cut.status == null || java.util.Arrays.equals(body, cut.status))
                        && armed.compareAndSet(cut, null)) {
                    if (!cut.clientNext) {
                        fired.countDown();
                        return;
                    }
                    drop.set(true);  // before the client can answer this message
                }
                if (cut != null && kind == 'D' && holds(body, rowHolds)) {
                    row = true;
                }
                out.write(kind);
                out.write(int4(size));
                out.write(body);
                out.flush();
            }
        } catch (IOException ignored) {
            // either side gone
        } finally {
            reset(upstream);
            reset(client);
        }
    }

    private static byte[] int4(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
    }
}
