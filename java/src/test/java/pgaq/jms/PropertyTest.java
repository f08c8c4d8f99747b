package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.jms.JMSException;
import javax.jms.MessageFormatException;
import javax.jms.MessageNotWriteableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Properties as JMS 1.1 3.5 and Oracle's guide ("JMS Message Properties", "Using Message
 * Properties with Different Message Types") define them: names, who may set the JMSX and
 * JMS_Oracle ones, null reads, read-only after receipt.
 */
class PropertyTest {
    static List<String> names(AQjmsMessage m) {
        List<String> out = new ArrayList<>();
        for (Object n : Collections.list(m.getPropertyNames())) {
            out.add((String) n);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "_a", "$a", "abc123", "\u00e9t\u00e9", "\u4e2d", "a_b$c", "JMS_IBM_Format",
        "nullable", "TRUEish", "Is_"})
    void identifiersAreNames(String name) throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        m.setIntProperty(name, 1);
        assertEquals(1, m.getIntProperty(name));
        assertTrue(m.propertyExists(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1a", "a-b", "a b", "a.b", "a\u0000", "\ud83d\ude00", "a+b"})
    void nonIdentifiersAreRefused(String name) {
        assertThrows(IllegalArgumentException.class, () -> new AQjmsMessage().setStringProperty(name, "x"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS",
        "ESCAPE", "null", "True", "escape", "Between"})
    void selectorWordsAreRefused(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new AQjmsMessage().setBooleanProperty(name, true));
        assertTrue(e.getMessage().startsWith("JMS-119"), e.getMessage());
    }

    @Test
    void nullNameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new AQjmsMessage().setIntProperty(null, 1));
        assertThrows(IllegalArgumentException.class, () -> new AQjmsMessage().getIntProperty(null));
        assertThrows(IllegalArgumentException.class, () -> new AQjmsMessage().getStringProperty(""));
    }

    @ParameterizedTest
    @ValueSource(strings = {"JMSXAppID", "JMSXGroupID", "JMSXGroupSeq", "JMS_OracleExcpQ", "JMS_OracleDelay",
        "JMSXGroupid"})
    void clientSetsTheseJmsxProperties(String name) throws JMSException {
        AQjmsMessage m = new AQjmsTextMessage();
        m.setStringProperty(name, "5");
        assertEquals("5", m.getStringProperty(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"JMSXUserID", "JMSXDeliveryCount", "JMSXRcvTimestamp", "JMSXState",
        "JMS_OracleOriginalMessageID", "JMSXuserID", "JMSXRecvTimeStamp", "JMS_OracleOriginalMessageId"})
    void providerPropertiesAreNotWriteable(String name) {
        MessageNotWriteableException e = assertThrows(MessageNotWriteableException.class,
                () -> new AQjmsBytesMessage().setStringProperty(name, "5"));
        assertEquals("JMS-110", e.getErrorCode());
    }

    @ParameterizedTest
    @ValueSource(strings = {"JMSFoo", "JMSCorrelationID", "JMS_OracleTimeToLive", "JMS_OracleOther", "JMSX"})
    void jmsNamesAreNotTheClients(String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new AQjmsMessage().setIntProperty(name, 1));
        assertTrue(e.getMessage().startsWith("JMS-150"), e.getMessage());
    }

    @Test
    void adtMessageTakesOnlyExceptionQueueAndDelay() throws JMSException {
        AQjmsAdtMessage m = new AQjmsAdtMessage();
        m.setIntProperty("JMS_OracleDelay", 3);
        m.setStringProperty("JMS_OracleExcpQ", "S.EQ");
        assertEquals("JMS-110", assertThrows(MessageNotWriteableException.class,
                () -> m.setStringProperty("JMSXAppID", "a")).getErrorCode());
        assertEquals("JMS-150", assertThrows(JMSException.class,
                () -> m.setStringProperty("user", "a")).getErrorCode());
    }

    @Test
    void jmsxPropertiesTakeTheirOwnType() throws JMSException {
        AQjmsMessage m = new AQjmsTextMessage();
        m.setStringProperty("JMS_OracleDelay", "7");
        assertEquals(7, m.getObjectProperty("JMS_OracleDelay"));
        m.setLongProperty("JMSXGroupSeq", 9L);
        assertEquals(9, m.getObjectProperty("JMSXGroupSeq"));
        m.setIntProperty("JMSXAppID", 12);
        assertEquals("12", m.getObjectProperty("JMSXAppID"));
        assertThrows(MessageFormatException.class, () -> m.setLongProperty("JMSXGroupSeq", 1L << 40));
        assertThrows(MessageFormatException.class, () -> m.setBooleanProperty("JMS_OracleDelay", true));
        assertThrows(MessageFormatException.class, () -> m.setDoubleProperty("JMS_OracleDelay", 1.0));
        assertThrows(NumberFormatException.class, () -> m.setStringProperty("JMS_OracleDelay", "soon"));
        assertEquals("JMSXGroupID", PropertyTable.checkName("JMSXGroupid"));
        m.setStringProperty("JMSXGroupid", "g");
        assertEquals("g", m.getStringProperty("JMSXGroupID"));
        assertTrue(names(m).contains("JMSXGroupID"));
    }

    @Test
    void missingPropertiesReadAsNull() throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        assertFalse(m.getBooleanProperty("none"));
        assertNull(m.getStringProperty("none"));
        assertNull(m.getObjectProperty("none"));
        assertFalse(m.propertyExists("none"));
        // JMS 1.1 3.5.4: valueOf(null) for numbers: Integer's and the other integers' throw a
        // NumberFormatException, Float's and Double's a NullPointerException (as ActiveMQ)
        assertThrows(NumberFormatException.class, () -> m.getByteProperty("none"));
        assertThrows(NumberFormatException.class, () -> m.getShortProperty("none"));
        assertThrows(NumberFormatException.class, () -> m.getIntProperty("none"));
        assertThrows(NumberFormatException.class, () -> m.getLongProperty("none"));
        assertThrows(NullPointerException.class, () -> m.getFloatProperty("none"));
        assertThrows(NullPointerException.class, () -> m.getDoubleProperty("none"));
    }

    @Test
    void stringsThatAreNotNumbers() throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        m.setStringProperty("s", "12x");
        assertThrows(NumberFormatException.class, () -> m.getIntProperty("s"));
        assertThrows(NumberFormatException.class, () -> m.getDoubleProperty("s"));
        m.setStringProperty("big", "300");
        assertThrows(NumberFormatException.class, () -> m.getByteProperty("big"));
        assertEquals(300, m.getIntProperty("big"));
        m.setStringProperty("b", "TRUE");
        assertTrue(m.getBooleanProperty("b"));  // Boolean.valueOf ignores case
        m.setStringProperty("b", "yes");
        assertFalse(m.getBooleanProperty("b"));
        m.setStringProperty("f", " 1.5 ");
        assertEquals(1.5f, m.getFloatProperty("f"));  // Float.valueOf trims
        m.setStringProperty("nan", "NaN");
        assertTrue(Double.isNaN(m.getDoubleProperty("nan")));
    }

    @Test
    void setObjectPropertyTakesPropertyTypesOnly() throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        m.setObjectProperty("i", 5);
        m.setObjectProperty("l", 5L);
        m.setObjectProperty("f", 1.5f);
        assertEquals(Integer.class, m.getObjectProperty("i").getClass());
        assertEquals(Long.class, m.getObjectProperty("l").getClass());
        assertEquals(Float.class, m.getObjectProperty("f").getClass());
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("n", null));
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("c", 'c'));
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("b", new byte[1]));
        assertThrows(MessageFormatException.class, () -> m.setObjectProperty("o", new Object()));
    }

    @Test
    void namesInTheOrderSetAndSetAgainMovesLast() throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        m.setIntProperty("a", 1);
        m.setIntProperty("b", 2);
        m.setIntProperty("a", 3);
        assertEquals(java.util.Arrays.asList("b", "a"), names(m));
    }

    @Test
    void receivedPropertiesAreReadOnlyUntilCleared() throws JMSException {
        AQjmsTextMessage m = new AQjmsTextMessage();
        m.setIntProperty("a", 1);
        m.setReadOnly();
        assertThrows(MessageNotWriteableException.class, () -> m.setIntProperty("a", 2));
        assertThrows(MessageNotWriteableException.class, () -> m.setObjectProperty("b", "x"));
        assertEquals(1, m.getIntProperty("a"));
        // clearBody leaves the properties read-only
        m.clearBody();
        assertThrows(MessageNotWriteableException.class, () -> m.setIntProperty("a", 2));
        m.clearProperties();
        assertFalse(m.propertyExists("a"));
        m.setIntProperty("a", 2);
        assertEquals(2, m.getIntProperty("a"));
    }

    @Test
    void providerPropertiesBypassTheChecks() throws JMSException {
        AQjmsMessage m = new AQjmsMessage();
        m.setReadOnly();
        m.setProviderProperty("JMSXDeliveryCount", 3);
        m.setProviderProperty("JMSXRcvTimestamp", 5L);
        assertEquals(3, m.getIntProperty("JMSXDeliveryCount"));
        assertEquals(5L, m.getLongProperty("JMSXRecvTimestamp"));
        assertEquals("3", m.getStringProperty("JMSXDeliveryCount"));
        m.clearProperties();
        assertTrue(names(m).isEmpty());
    }
}
