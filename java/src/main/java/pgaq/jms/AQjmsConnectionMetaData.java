package pgaq.jms;

import java.util.Arrays;
import java.util.Enumeration;
import java.util.Vector;
import javax.jms.ConnectionMetaData;

/** JMS 1.1, the JMSX properties this provider supports (section 3.5.9). */
public class AQjmsConnectionMetaData implements ConnectionMetaData {
    static final String PROVIDER_VERSION = "1.0";

    @Override
    public String getJMSVersion() {
        return "1.1";
    }

    @Override
    public int getJMSMajorVersion() {
        return 1;
    }

    @Override
    public int getJMSMinorVersion() {
        return 1;
    }

    @Override
    public String getJMSProviderName() {
        return "pgaq";
    }

    @Override
    public String getProviderVersion() {
        return PROVIDER_VERSION;
    }

    @Override
    public int getProviderMajorVersion() {
        return 1;
    }

    @Override
    public int getProviderMinorVersion() {
        return 0;
    }

    @Override
    public Enumeration<String> getJMSXPropertyNames() {
        return new Vector<>(Arrays.asList("JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq",
                "JMSXUserID", "JMSXAppID", "JMSXRcvTimestamp", "JMSXState")).elements();
    }
}
