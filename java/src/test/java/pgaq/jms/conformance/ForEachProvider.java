package pgaq.jms.conformance;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A test run once per provider of {@link Provider#all()}; each run is named after its
 *  provider ("[activemq]", "[pgaq]"), so a failure names the provider it failed on. */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "[{0}]")
@MethodSource("pgaq.jms.conformance.Provider#all")
public @interface ForEachProvider {
}
