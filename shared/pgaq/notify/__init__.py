"""Notification delivery: the outbox the enqueue writes, delivered by the notifier service."""
