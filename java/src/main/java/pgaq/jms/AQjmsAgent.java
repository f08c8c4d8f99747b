package pgaq.jms;

import java.util.Objects;
import javax.jms.Destination;

/**
 * Oracle's agent (oracle.jms.AQjmsAgent, sys.aq$_agent): {@code name} a consumer
 * (subscriber) name, {@code address} a queue or topic ("owner.name[@dblink]"),
 * {@code protocol} 0 for AQ. Recipient lists, sender ids and, as a Destination, JMSReplyTo
 * (Oracle Database Advanced Queuing User's Guide, "JMS Message Headers").
 */
public class AQjmsAgent implements Destination {
    private final String name;
    private final String address;
    private final int protocol;

    public AQjmsAgent(String name, String address, int protocol) {
        this.name = name;
        this.address = address;
        this.protocol = protocol;
    }

    /** Oracle's two-argument form: protocol 0. */
    public AQjmsAgent(String name, String address) {
        this(name, address, 0);
    }

    public String getName() {
        return name;
    }

    public String getAddress() {
        return address;
    }

    public int getProtocol() {
        return protocol;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof AQjmsAgent)) {
            return false;
        }
        AQjmsAgent a = (AQjmsAgent) o;
        return Objects.equals(name, a.name) && Objects.equals(address, a.address)
                && protocol == a.protocol;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, address, protocol);
    }

    @Override
    public String toString() {
        return "AQjmsAgent(" + name + ", " + address + ", " + protocol + ")";
    }
}
