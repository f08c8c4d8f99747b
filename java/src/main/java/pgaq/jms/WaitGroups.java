package pgaq.jms;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The waiters of a JMS Connection, by channel and share key, and who a wake-up goes to
 * (the rules of pgaq.listener, the Python side's). A waiter without a key is woken by
 * every NOTIFY of its channel. Waiters that compete for the same messages (a key: the
 * queue, consumer, selector and noLocal, {@link AQjmsConsumer#shareKey}) pass a baton
 * instead: a NOTIFY wakes ONE of them, the one that began to wait last, so a message
 * committed while hundreds wait costs one look, not hundreds. A waiter whose look took
 * something calls {@link #took}, which wakes the next one (a transaction that enqueued k
 * messages notifies once); one that found nothing keeps the wake-up, as no other waiter of
 * its key could have found more. One that leaves holding a wake-up it did not use (still
 * set, or by an exception) passes it on. A key's safety look is one of its waiters woken
 * per period by the listening thread ({@link #safetyRound}), not a timer per waiter.
 *
 * Each waiting thread sleeps on a condition of its own, so a wake-up wakes its thread only
 * (a monitor's notifyAll woke all 256). {@link #nudge} wakes every thread to re-check its
 * state (closed, stopped) without a look; {@link #wakeEvery} (a reconnect) makes every
 * waiter look.
 */
final class WaitGroups {
    private final ReentrantLock lock = new ReentrantLock();
    /** channel -> share key (null: woken on every NOTIFY) -> waiters, the one that began to
     *  wait last at the end. */
    private final Map<String, Map<Object, List<Waiter>>> groups = new HashMap<>();
    private long epoch;
    private boolean closed;
    /** The listening thread runs, making the shared keys' safety looks. */
    private boolean polling;
    /** Safety rounds made (tests wait for them). */
    private long rounds;

    /** A condition for one waiting thread (its waiters' {@code wake}). */
    Condition newCondition() {
        return lock.newCondition();
    }

    Waiter join(String channel, Object share, Condition wake) {
        Waiter w = new Waiter(channel, share, wake == null ? lock.newCondition() : wake);
        lock.lock();
        try {
            groups.computeIfAbsent(channel, k -> new HashMap<>())
                    .computeIfAbsent(share, k -> new ArrayList<>()).add(w);
            return w;
        } finally {
            lock.unlock();
        }
    }

    /** {@code w} waits no more; {@code clean}: not by an exception. A wake-up it may not
     *  have used goes to the next waiter of its key. */
    void leave(Waiter w, boolean clean) {
        lock.lock();
        try {
            Map<Object, List<Waiter>> byKey = groups.get(w.channel);
            List<Waiter> group = byKey == null ? null : byKey.get(w.share);
            if (group != null) {
                group.remove(w);
                if (group.isEmpty()) {
                    byKey.remove(w.share);
                }
            }
            if (w.share != null && (w.set || !clean) && group != null) {
                wakeOne(group, w);
            }
        } finally {
            lock.unlock();
        }
    }

    /** {@code w}'s look took something: there may be more, wake the next waiter of its key. */
    void took(Waiter w) {
        if (w.share == null) {
            return;
        }
        lock.lock();
        try {
            Map<Object, List<Waiter>> byKey = groups.get(w.channel);
            List<Waiter> group = byKey == null ? null : byKey.get(w.share);
            if (group != null) {
                wakeOne(group, w);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Before a look: the wake-up is being used. Whether one was pending. */
    boolean clear(Waiter w) {
        lock.lock();
        try {
            boolean was = w.set;
            w.set = false;
            return was;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the listening thread makes {@code w}'s safety looks (else it times its own). */
    boolean polled(Waiter w) {
        lock.lock();
        try {
            return w.share != null && polling;
        } finally {
            lock.unlock();
        }
    }

    /** The count {@link #nudge} advances: a waiter notes it before checking its state. */
    long epoch() {
        lock.lock();
        try {
            return epoch;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Block until one of {@code ws} (all of them on {@code wake}) is woken, {@code millis}
     * pass (Long.MAX_VALUE: no limit), or a nudge after {@code epochSeen}. Whether to look:
     * true when woken or timed out, false after a nudge or once closed.
     */
    boolean await(Collection<Waiter> ws, Condition wake, long epochSeen, long millis) throws InterruptedException {
        lock.lock();
        try {
            for (Waiter w : ws) {
                if (!w.set && !w.blocked) {
                    idleNow(w);
                }
                w.blocked = true;
            }
            try {
                long left = millis >= Long.MAX_VALUE / 1_000_000L ? Long.MAX_VALUE : millis * 1_000_000L;
                while (true) {
                    for (Waiter w : ws) {
                        if (w.set) {
                            return true;
                        }
                    }
                    if (closed || epoch != epochSeen) {
                        return false;
                    }
                    if (left <= 0) {
                        return true;
                    }
                    if (left == Long.MAX_VALUE) {
                        wake.await();
                    } else {
                        left = wake.awaitNanos(left);
                    }
                }
            } finally {
                for (Waiter w : ws) {
                    w.blocked = false;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    boolean await(Waiter w, long epochSeen, long millis) throws InterruptedException {
        return await(Collections.singletonList(w), w.wake, epochSeen, millis);
    }

    /** A NOTIFY of {@code channel}: every waiter without a key, and one of each key. */
    void notified(String channel) {
        lock.lock();
        try {
            Map<Object, List<Waiter>> byKey = groups.get(channel);
            if (byKey == null) {
                return;
            }
            for (Map.Entry<Object, List<Waiter>> e : byKey.entrySet()) {
                if (e.getKey() == null) {
                    for (Waiter w : e.getValue()) {
                        set(w);
                    }
                } else {
                    wakeOne(e.getValue(), null);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every key's safety look: one of its waiters woken as a NOTIFY would (it found
     *  nothing, so none of the others would have). */
    void safetyRound() {
        lock.lock();
        try {
            rounds++;
            for (Map<Object, List<Waiter>> byKey : groups.values()) {
                for (Map.Entry<Object, List<Waiter>> e : byKey.entrySet()) {
                    if (e.getKey() != null) {
                        wakeOne(e.getValue(), null);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every waiter looks (a reconnect: whatever was notified meanwhile is looked for). */
    void wakeEvery() {
        lock.lock();
        try {
            for (Map<Object, List<Waiter>> byKey : groups.values()) {
                for (List<Waiter> group : byKey.values()) {
                    for (Waiter w : group) {
                        set(w);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Every waiting thread re-checks its state (start, stop, close, a listener changed);
     *  none looks for that. */
    void nudge() {
        lock.lock();
        try {
            epoch++;
            signalAll();
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
            epoch++;
            signalAll();
        } finally {
            lock.unlock();
        }
    }

    void polling(boolean on) {
        lock.lock();
        try {
            polling = on;
            signalAll();  // (waiters that stop being polled time their own looks)
        } finally {
            lock.unlock();
        }
    }

    long rounds() {
        lock.lock();
        try {
            return rounds;
        } finally {
            lock.unlock();
        }
    }

    /** How many waiters there are now. */
    int waiters() {
        lock.lock();
        try {
            int n = 0;
            for (Map<Object, List<Waiter>> byKey : groups.values()) {
                for (List<Waiter> group : byKey.values()) {
                    n += group.size();
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** How many of them are blocked in their wait with no wake-up pending (all of them,
     *  once every wake-up was looked into). */
    int idle() {
        lock.lock();
        try {
            int n = 0;
            for (Map<Object, List<Waiter>> byKey : groups.values()) {
                for (List<Waiter> group : byKey.values()) {
                    for (Waiter w : group) {
                        n += w.blocked && !w.set ? 1 : 0;
                    }
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Wake the waiter of {@code group} that began to wait last (blocked in its wait), else
     *  one not set (busy looking: it looks again); none when every one is set already (each
     *  of them looks again). */
    private void wakeOne(List<Waiter> group, Waiter but) {
        Waiter chosen = null;
        for (int i = group.size() - 1; i >= 0; i--) {
            Waiter w = group.get(i);
            if (w == but || w.set) {
                continue;
            }
            if (w.blocked) {
                chosen = w;
                break;
            }
            if (chosen == null) {
                chosen = w;
            }
        }
        if (chosen != null) {
            set(chosen);
        }
    }

    /** {@code w} begins to wait: the most recently idle of its key, the next to be woken
     *  (its backend and its memory are the warmest). */
    private void idleNow(Waiter w) {
        if (w.share == null) {
            return;
        }
        Map<Object, List<Waiter>> byKey = groups.get(w.channel);
        List<Waiter> group = byKey == null ? null : byKey.get(w.share);
        if (group != null && group.remove(w)) {
            group.add(w);
        }
    }

    private void set(Waiter w) {
        w.set = true;
        w.wake.signalAll();
    }

    private void signalAll() {
        for (Map<Object, List<Waiter>> byKey : groups.values()) {
            for (List<Waiter> group : byKey.values()) {
                for (Waiter w : group) {
                    w.wake.signalAll();
                }
            }
        }
    }
}
