package pgaq.jms;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.jms.IllegalStateException;
import javax.jms.InvalidDestinationException;
import javax.jms.InvalidSelectorException;
import javax.jms.JMSException;
import javax.jms.JMSSecurityException;
import javax.jms.TransactionRolledBackException;

/**
 * The provider's SQL: one named file per statement under pgaq/jms/sql/ in the jar (the same
 * functions every pgaq client calls), and the mapping of the database's errors to JMS
 * exceptions carrying Oracle's codes.
 */
final class Sql {
    private static final ConcurrentMap<String, String> CACHE = new ConcurrentHashMap<>();

    private Sql() {
    }

    static String load(String name) {
        return CACHE.computeIfAbsent(name, Sql::read);
    }

    private static String read(String name) {
        try (InputStream in = Sql.class.getResourceAsStream("sql/" + name + ".sql")) {
            if (in == null) {
                throw new java.lang.IllegalStateException("no SQL file " + name + ".sql in the jar");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            for (int n; (n = in.read(buf)) > 0;) {
                out.write(buf, 0, n);
            }
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.lang.IllegalStateException("cannot read SQL file " + name, e);
        }
    }

    /** The ORA code a database error's message starts with (aq.err raises "ORA-nnnnn: ..."), or 0. */
    static int oraCode(String message) {
        if (message == null) {
            return 0;
        }
        int at = message.indexOf("ORA-");
        if (at < 0 || message.length() < at + 9) {
            return 0;
        }
        try {
            return Integer.parseInt(message.substring(at + 4, at + 9));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Whether the error means the database connection is gone (SQLSTATE class 08, or 57P). */
    static boolean connectionLost(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || state.startsWith("57P"));
    }

    /** A database error as the JMS exception an application expects, the ORA code kept. */
    static JMSException error(SQLException e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        // pgjdbc prefixes "ERROR: " and may add "Where: ..." lines: keep the first line
        int nl = message.indexOf('\n');
        String text = nl < 0 ? message : message.substring(0, nl);
        if (text.startsWith("ERROR: ")) {
            text = text.substring(7);
        }
        int code = oraCode(text);
        String state = e.getSQLState();
        JMSException out;
        if (connectionLost(e)) {
            return new AQjmsException("JMS-220", "Connection no longer available: " + text, e);
        } else if ("40001".equals(state) || "40P01".equals(state)) {
            out = new TransactionRolledBackException(text, code == 0 ? state : ora(code));
        } else if (code == 24010 || code == 24047 || code == 25205 || code == 24018) {
            out = new InvalidDestinationException(text, ora(code));
        } else if (code == 936 || code == 904 || code == 909 || code == 932 || code == 25448) {
            out = new InvalidSelectorException(text, ora(code));
        } else if (code == 1031 || "42501".equals(state)) {
            out = new JMSSecurityException(text, code == 0 ? "ORA-01031" : ora(code));
        } else if (code == 25207 || code == 25226) {
            out = new IllegalStateException(text, ora(code));
        } else {
            String prefix = code == 0 ? "" : ora(code) + ": ";
            String reason = text.startsWith(prefix) ? text.substring(prefix.length()) : text;
            return new AQjmsException(code == 0 ? "JMS-122" : ora(code), reason, e);
        }
        out.setLinkedException(e);
        out.initCause(e);
        return out;
    }

    static String ora(int code) {
        return String.format("ORA-%05d", code);
    }
}
