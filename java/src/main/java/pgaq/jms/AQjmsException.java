package pgaq.jms;

import javax.jms.JMSException;

/**
 * A JMSException with Oracle's error code ("JMS-nnn" for the provider's, "ORA-nnnnn" for the
 * database's), as oracle.jms.AQjmsException carries it: {@link #getErrorCode()} gives the code,
 * {@link #getErrorNumber()} its number.
 */
public class AQjmsException extends JMSException {
    private static final long serialVersionUID = 1L;

    public AQjmsException(String code, String reason) {
        super(code + ": " + reason, code);
    }

    public AQjmsException(String code, String reason, Exception cause) {
        super(code + ": " + reason, code);
        if (cause != null) {
            setLinkedException(cause);
            initCause(cause);
        }
    }

    /** The number of the code: 107 for JMS-107, 25228 for ORA-25228. */
    public int getErrorNumber() {
        String code = getErrorCode();
        int dash = code == null ? -1 : code.indexOf('-');
        try {
            return dash < 0 ? 0 : Integer.parseInt(code.substring(dash + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
