package pgaq.jms;

import javax.jms.MessageEOFException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotReadableException;
import javax.jms.MessageNotWriteableException;

/**
 * The message exceptions JMS 1.1 names, with Oracle's codes (AQjmsError's numbers, as
 * pgaq.jms.errors gives them): the reason starts with the code, as AQjmsException's does.
 */
final class Errors {
    /** JMS-117: a conversion the tables forbid ("Conversion failed - invalid property type"). */
    static final String CONVERSION = "JMS-117";
    /** JMS-161: "MessageFormat Exception" (anything else about a value's form). */
    static final String FORMAT = "JMS-161";

    private Errors() {
    }

    static MessageFormatException format(String code, String reason) {
        return new MessageFormatException(reason.startsWith(code) ? reason : code + ": " + reason,
                code);
    }

    static MessageFormatException format(String code, String reason, Exception cause) {
        MessageFormatException e = format(code, reason);
        e.setLinkedException(cause);
        e.initCause(cause);
        return e;
    }

    static MessageNotWriteableException notWriteable(String code, String reason) {
        return new MessageNotWriteableException(code + ": " + reason, code);
    }

    static MessageNotReadableException notReadable(String reason) {
        return new MessageNotReadableException("JMS-162: " + reason, "JMS-162");
    }

    static MessageEOFException eof(String reason) {
        return new MessageEOFException("JMS-160: " + reason, "JMS-160");
    }
}
