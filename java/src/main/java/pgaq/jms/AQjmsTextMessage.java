package pgaq.jms;

import javax.jms.JMSException;
import javax.jms.TextMessage;

/** A String body (sys.aq$_jms_text_message: text_len, text_vc). */
public class AQjmsTextMessage extends AQjmsMessage implements TextMessage {
    private String text;

    public AQjmsTextMessage() {
    }

    @Override
    String bodyKind() {
        return "JMS_TEXT";
    }

    @Override
    public void setText(String text) throws JMSException {
        checkBodyWritable();
        this.text = text;
    }

    @Override
    public String getText() {
        return text;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        text = null;
    }

    /** The text as received, bypassing the read-only state (the codec). */
    void text(String t) {
        this.text = t;
    }
}
