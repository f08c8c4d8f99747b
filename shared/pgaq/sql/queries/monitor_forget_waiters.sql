SELECT aq.forget_dead_waiters()
