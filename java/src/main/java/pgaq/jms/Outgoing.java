package pgaq.jms;

/**
 * One message as aq.enqueue_array takes it (PayloadCodec.encode): {@code properties} the
 * JSON array of p_props (one element: MessageProperties.to_json's object and its
 * "delivery_mode"), {@code payloads} the JSON array of p_payloads (one element; null for a
 * RAW queue), {@code raw} the bytea[] of a RAW queue (one element; else null).
 */
final class Outgoing {
    String properties;
    String payloads;
    byte[][] raw;
}
