package pgaq.jms;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * Runs selections of the tests one after another in this JVM (java/build serve), each as the
 * JUnit console launcher runs one (java/build run), for tests/java/junit.py: a JVM of its own
 * per test class cost 1-2 s of CPU each to start and warm up again, two thirds of what most
 * classes cost. A run is one line on standard input, its fields separated by tabs: the JDBC
 * URL of the run's database (the system property pgaq.jdbc.url, which TestDb reads), the
 * directory of its JUnit XML reports, then its selectors ({@code class:C} or
 * {@code method:C#m}). The run's output (the tests' own) follows on standard output, then
 * its failures, then a line {@link #DONE} and the number of failures. System properties a
 * run sets are undone after it; the JVM ends when its input does.
 */
public final class JUnitRuns {
    /** What ends a run's output: no test prints it. */
    static final String DONE = "\u0001pgaq-junit-run-done ";

    private JUnitRuns() {
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Launcher launcher = LauncherFactory.create();
        for (String line; (line = in.readLine()) != null;) {
            long failures;
            PrintWriter out = new PrintWriter(System.out, true);
            Properties before = (Properties) System.getProperties().clone();
            try {
                failures = run(launcher, line.split("\t"), out);
            } catch (Throwable t) {  // a run that cannot start: its failure, told
                t.printStackTrace(out);
                failures = 1;
            } finally {
                restore(before);
            }
            out.println();
            out.println(DONE + failures);
            out.flush();
        }
        // the tests' non-daemon threads, if any left, would keep the JVM up
        System.exit(0);
    }

    private static long run(Launcher launcher, String[] fields, PrintWriter out) throws IOException {
        System.setProperty("pgaq.jdbc.url", fields[0]);
        Path reports = Paths.get(fields[1]);
        Files.createDirectories(reports);
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (int i = 2; i < fields.length; i++) {
            String s = fields[i];
            if (s.startsWith("class:")) {
                selectors.add(DiscoverySelectors.selectClass(s.substring(6)));
            } else if (s.startsWith("method:")) {
                selectors.add(DiscoverySelectors.selectMethod(s.substring(7)));
            } else {
                throw new IllegalArgumentException("selector neither class: nor method: " + s);
            }
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        // the same reports (TEST-junit-jupiter.xml, TEST-junit-vintage.xml) as the console
        // launcher's --reports-dir
        launcher.execute(request, summary, new LegacyXmlReportGeneratingListener(reports, out));
        TestExecutionSummary s = summary.getSummary();
        s.printFailuresTo(out, 40);
        s.printTo(out);
        return s.getTotalFailureCount();
    }

    /** The system properties as they were before a run (SeedExamplesTest turns streaming
     *  on, for one): the next run starts as a JVM of its own would. */
    private static void restore(Properties before) {
        Map<Object, Object> now = new HashMap<>(System.getProperties());
        for (Object k : now.keySet()) {
            if (!before.containsKey(k)) {
                System.clearProperty((String) k);
            }
        }
        for (String k : before.stringPropertyNames()) {
            if (!before.getProperty(k).equals(System.getProperty(k))) {
                System.setProperty(k, before.getProperty(k));
            }
        }
    }
}
