package pgaq.jms;

/**
 * The Java types a JMS value may have (JMS 1.1 3.5.4, 3.11.3): a map item or stream field is
 * any of them, a property any but CHAR and BYTES. {@link #json} is the type's name in the
 * engine's JSON ({"type": ..., "value": ...}, pgaq.jms._values), {@link #java} the Java name
 * error messages use.
 */
enum Kind {
    BOOLEAN("boolean", "boolean"),
    BYTE("byte", "byte"),
    SHORT("short", "short"),
    CHAR("char", "char"),
    INT("int", "int"),
    LONG("long", "long"),
    FLOAT("float", "float"),
    DOUBLE("double", "double"),
    STRING("string", "String"),
    BYTES("bytes", "byte[]");

    final String json;
    final String java;

    Kind(String json, String java) {
        this.json = json;
        this.java = java;
    }

    /** The kind named in the engine's JSON (case-insensitive), null for any other name. */
    static Kind ofJson(String name) {
        if (name == null) {
            return null;
        }
        for (Kind k : values()) {
            if (k.json.equalsIgnoreCase(name)) {
                return k;
            }
        }
        return null;
    }

    boolean isInteger() {
        return this == BYTE || this == SHORT || this == INT || this == LONG;
    }

    boolean isProperty() {
        return this != CHAR && this != BYTES;
    }
}
