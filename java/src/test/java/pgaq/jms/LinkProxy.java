package pgaq.jms;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy in front of PostgreSQL (as chaos/proxy.py's LinkProxy): {@link #down()}
 * resets every connection through it and refuses new ones until {@link #up()}, as HAProxy
 * does to the clients of a failed primary until the new one is in service.
 */
final class LinkProxy implements AutoCloseable {
    private final int target;
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;
    private volatile boolean closed;

    LinkProxy(int target) throws IOException {
        this.target = target;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "link-proxy");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** {@code url} (a pgjdbc URL to 127.0.0.1:target) through this proxy. */
    String through(String url) {
        String direct = "//127.0.0.1:" + target + "/";
        if (!url.contains(direct)) {
            throw new IllegalArgumentException("not a URL to port " + target + ": " + url);
        }
        return url.replace(direct, "//127.0.0.1:" + port() + "/");
    }

    /** The port of a pgjdbc URL. */
    static int portOf(String url) {
        int host = url.indexOf("//") + 2;
        int colon = url.indexOf(':', host);
        int slash = url.indexOf('/', colon);
        return Integer.parseInt(url.substring(colon + 1, slash));
    }

    void down() {
        cut = true;
        for (Socket s : sockets) {
            reset(s);
        }
        sockets.clear();
    }

    void up() {
        cut = false;
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);  // an RST, as a dropped link or HAProxy's shutdown-sessions
            s.close();
        } catch (IOException ignored) {
            // gone already
        }
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (cut) {
                reset(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target));
            } catch (IOException e) {
                reset(client);
                continue;
            }
            sockets.add(client);
            sockets.add(upstream);
            pipe(client, upstream);
            pipe(upstream, client);
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[65536];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // either side gone: the other goes too
            } finally {
                reset(to);
                reset(from);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "link-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        down();
    }
}
