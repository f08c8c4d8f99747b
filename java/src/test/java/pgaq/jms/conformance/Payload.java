package pgaq.jms.conformance;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** An ObjectMessage body of the test's own class (JMS 1.1 3.11.5: any Serializable). */
final class Payload implements Serializable {
    private static final long serialVersionUID = 1L;

    final String name;
    final int[] numbers;
    final List<String> tags;

    Payload(String name, int[] numbers, List<String> tags) {
        this.name = name;
        this.numbers = numbers.clone();
        this.tags = new ArrayList<>(tags);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Payload)) {
            return false;
        }
        Payload other = (Payload) o;
        return Objects.equals(name, other.name) && Arrays.equals(numbers, other.numbers)
                && Objects.equals(tags, other.tags);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, Arrays.hashCode(numbers), tags);
    }

    @Override
    public String toString() {
        return "Payload(" + name + ", " + Arrays.toString(numbers) + ", " + tags + ")";
    }
}
