package pgaq.jms;

import java.util.concurrent.locks.Condition;

/**
 * One waiting receive's (or one listener consumer's) place among the waiters of a channel
 * ({@link WaitGroups}): whether a wake-up is pending for it ({@code set}, cleared by its
 * owner before each look) and whether its thread is blocked in its wait now. The fields are
 * read and written under the groups' lock only.
 */
final class Waiter {
    final String channel;
    /** Waiters of the same key compete for the same messages; null: woken on every NOTIFY. */
    final Object share;
    /** The owning thread's condition (a listener thread's waiters share one). */
    final Condition wake;
    boolean set;
    boolean blocked;

    Waiter(String channel, Object share, Condition wake) {
        this.channel = channel;
        this.share = share;
        this.wake = wake;
    }
}
