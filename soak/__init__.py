"""The soak: the chaos mesh at a steady rate for an hour, sampled, then judged."""
