SELECT aq.take_snapshot()
