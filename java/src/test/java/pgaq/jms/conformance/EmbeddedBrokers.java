package pgaq.jms.conformance;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Stops the embedded ActiveMQ broker when the test plan ends, while the test class loader
 *  is still open (the broker's own shutdown hook runs too late under the console launcher). */
final class EmbeddedBrokers implements BeforeAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(EmbeddedBrokers.class, k -> new Stopper(), Stopper.class);
    }

    private static final class Stopper implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            ActiveMqProvider.stopBroker();
        }
    }
}
