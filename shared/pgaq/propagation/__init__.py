"""Propagation: schedules that move messages to queues here, in another PostgreSQL
database or behind another pgaq gateway, exactly once."""
