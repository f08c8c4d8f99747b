package pgaq.jms;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import javax.jms.JMSException;

/**
 * Oracle's JMS streaming API on Bytes and Stream messages (Oracle Database Advanced Queuing
 * User's Guide, "JMS Streaming"): setInputStream, isLargeBody, getBody(OutputStream...).
 * pgaq stores and fetches a body whole, so the calls copy: setInputStream reads the stream
 * to its end into the body, getBody writes the body out in chunks. isLargeBody tells what
 * Oracle's server would have streamed: a received body above the threshold, with streaming
 * on (system property oracle.jms.useJmsStreaming=true, off by default as Oracle's), taken by
 * a receive of a CLIENT_ACKNOWLEDGE or transacted session, PERSISTENT (Oracle streams in no
 * other case). The threshold is the system property pgaq.jms.largeBodyThreshold, in bytes
 * (Oracle's 10 MB by default). Errors: JMS-191 (IllegalStateException) for a body given both
 * ways, JMS-192 when the stream fails, JMS-194 when getBody's time is up.
 */
final class Streaming {
    /** Oracle's: "The default threshold value is 10 MB". */
    static final long DEFAULT_THRESHOLD = 10L * 1024 * 1024;
    /** Oracle's getBody default chunk: "default value 8192 (ie. 8KB)". */
    static final int DEFAULT_CHUNK = 8192;

    private Streaming() {
    }

    /** oracle.jms.useJmsStreaming, read at each call (a program may set it at any time). */
    static boolean enabled() {
        return Boolean.parseBoolean(System.getProperty("oracle.jms.useJmsStreaming", "false").trim());
    }

    /** pgaq.jms.largeBodyThreshold in bytes (a body longer than this is large). */
    static long threshold() throws JMSException {
        String v = System.getProperty("pgaq.jms.largeBodyThreshold");
        if (v == null) {
            return DEFAULT_THRESHOLD;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new AQjmsException("JMS-100", "pgaq.jms.largeBodyThreshold is a number of bytes: " + v);
        }
    }

    /** Whether a received body of {@code length} bytes is one Oracle would have streamed. */
    static boolean large(AQjmsMessage m, long length) throws JMSException {
        return m.streamable && enabled() && length > threshold();
    }

    /** The stream read to its end (not closed: the caller opened it). */
    static byte[] readAll(InputStream in) throws JMSException {
        if (in == null) {
            throw new NullPointerException("setInputStream(null)");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[DEFAULT_CHUNK];
        try {
            for (int n; (n = in.read(chunk)) >= 0;) {
                out.write(chunk, 0, n);
            }
        } catch (IOException e) {
            throw new AQjmsException("JMS-192", "reading the message data from the input stream failed: "
                    + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    /** The body written to {@code out}, {@code chunk} bytes a write (0 or less: 8192),
     *  within {@code timeout} ms (0: no limit; negative: ignored, as 0). The stream is
     *  flushed, not closed. */
    static OutputStream write(byte[] body, int length, OutputStream out, int chunk, long timeout)
            throws JMSException {
        if (out == null) {
            throw new NullPointerException("getBody(null)");
        }
        int step = chunk > 0 ? chunk : DEFAULT_CHUNK;
        long deadline = timeout > 0 ? System.nanoTime() + timeout * 1_000_000L : Long.MAX_VALUE;
        try {
            for (int off = 0; off < length; off += step) {
                if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) {
                    throw new AQjmsException("JMS-194", "getBody: the body was not written within " + timeout
                            + " ms (" + off + " of " + length + " bytes written)");
                }
                out.write(body, off, Math.min(step, length - off));
            }
            out.flush();
        } catch (IOException e) {
            throw new AQjmsException("JMS-192", "writing the message body to the output stream failed: "
                    + e.getMessage(), e);
        }
        return out;
    }

    /** Oracle's rule: a body is given by setInputStream or by write* calls, not both. */
    static JMSException mixed(String what) {
        return new javax.jms.IllegalStateException("JMS-191: " + what + " (JMS streaming: a body comes "
                + "from setInputStream or from write calls, not both)", "JMS-191");
    }
}
