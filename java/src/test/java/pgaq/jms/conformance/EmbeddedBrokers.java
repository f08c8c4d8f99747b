package pgaq.jms.conformance;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Ends the providers when the test plan ends: stops the embedded ActiveMQ broker while the
 *  test class loader is still open (the broker's own shutdown hook runs too late under the
 *  console launcher), and lets the next plan of the same JVM (java/build serve) start its
 *  own, with pgaq on that plan's database. */
final class EmbeddedBrokers implements BeforeAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) {
        context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(EmbeddedBrokers.class, k -> new Stopper(), Stopper.class);
    }

    private static final class Stopper implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            Provider.endAll();
            ActiveMqProvider.stopBroker();  // one started by a provider list never made
        }
    }
}
