package pgaq.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Who a wake-up goes to (WaitGroups, the rules of the Python side's pgaq.listener), with
 * real threads blocked in their waits: one waiter of a share key per NOTIFY, the one that
 * began to wait last; the baton passed on by a waiter that took something or that leaves
 * holding a wake-up it did not use; one safety look per key per round.
 */
class WaitGroupsTest {
    private static final Object KEY = "jms:q";
    private final WaitGroups g = new WaitGroups();
    private final List<Thread> threads = new ArrayList<>();
    /** The waiters whose wait returned to look, in that order. */
    private final BlockingQueue<Waiter> woken = new ArrayBlockingQueue<>(100);

    @AfterEach
    void close() throws InterruptedException {
        g.close();
        for (Thread t : threads) {
            t.join(5000);
        }
    }

    private static void until(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(1);
        }
    }

    /** A waiter of {@code share} whose thread waits once (no timer) and reports its wake-up;
     *  returns once it is blocked in its wait. */
    private Waiter waiting(Object share) throws InterruptedException {
        Waiter w = g.join("aq_1", share, null);
        int idle = g.idle();
        Thread t = new Thread(() -> {
            try {
                if (g.await(w, g.epoch(), Long.MAX_VALUE)) {
                    woken.add(w);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.setDaemon(true);
        threads.add(t);
        t.start();
        until("the waiter waits", () -> g.idle() == idle + 1);
        return w;
    }

    private Waiter next() throws InterruptedException {
        return woken.poll(5, TimeUnit.SECONDS);
    }

    @Test
    void aNotifyWakesTheWaiterThatBeganToWaitLast() throws InterruptedException {
        Waiter a = waiting(KEY);
        Waiter b = waiting(KEY);
        Waiter c = waiting(KEY);
        g.notified("aq_1");
        assertEquals(c, next());
        g.notified("aq_1");
        assertEquals(b, next());
        assertTrue(woken.isEmpty());
        assertFalse(a.set);
    }

    @Test
    void waitersWithoutAKeyAreAllWoken() throws InterruptedException {
        waiting(null);
        waiting(null);
        Waiter shared = waiting(KEY);
        waiting(KEY);
        g.notified("aq_1");
        List<Waiter> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(next());
        }
        assertEquals(2, got.stream().filter(w -> w.share == null).count());
        assertFalse(got.contains(shared), "the key's other waiter slept on");
        g.notified("aq_2");  // another channel
        assertEquals(null, woken.poll(50, TimeUnit.MILLISECONDS));
    }

    @Test
    void aWaiterThatTookSomethingWakesTheNext() throws InterruptedException {
        Waiter a = waiting(KEY);
        Waiter b = waiting(KEY);
        g.notified("aq_1");
        assertEquals(b, next());
        assertTrue(g.clear(b));  // b looks and takes a message: there may be more
        g.took(b);
        assertEquals(a, next());
    }

    @Test
    void aWaiterThatFoundNothingKeepsTheWakeup() throws InterruptedException {
        waiting(KEY);
        Waiter b = waiting(KEY);
        g.notified("aq_1");
        assertEquals(b, next());
        g.clear(b);  // it looks, finds nothing, and waits again: nobody else is woken
        g.leave(b, true);
        assertEquals(null, woken.poll(50, TimeUnit.MILLISECONDS));
    }

    @Test
    void aWaiterLeavingWithAnUnusedWakeupPassesItOn() throws InterruptedException {
        Waiter a = waiting(KEY);
        Waiter b = waiting(KEY);
        g.notified("aq_1");
        assertEquals(b, next());
        g.leave(b, true);  // closed (or its time up) before its look: still set
        assertEquals(a, next());
    }

    @Test
    void aWaiterLeavingByAnExceptionPassesItsWakeupOn() throws InterruptedException {
        Waiter a = waiting(KEY);
        Waiter b = waiting(KEY);
        g.notified("aq_1");
        assertEquals(b, next());
        g.clear(b);
        g.leave(b, false);  // its look failed: whatever it was woken for is looked for again
        assertEquals(a, next());
    }

    @Test
    void aBusyWaiterIsWokenWhenNoneWaits() throws InterruptedException {
        Waiter a = g.join("aq_1", KEY, null);  // looking (not in its wait)
        g.notified("aq_1");
        assertTrue(a.set, "it looks again after its look");
        g.notified("aq_1");  // every waiter already looks again: nothing more to do
        assertTrue(a.set);
    }

    @Test
    void aSafetyRoundWakesOneWaiterOfEachKey() throws InterruptedException {
        waiting(KEY);
        waiting(KEY);
        Waiter other = waiting("jms:other");
        Waiter plain = waiting(null);
        g.safetyRound();
        List<Waiter> got = new ArrayList<>();
        got.add(next());
        got.add(next());
        assertTrue(got.contains(other));
        assertFalse(got.contains(plain), "a waiter without a key times its own looks");
        assertEquals(null, woken.poll(50, TimeUnit.MILLISECONDS));
        assertEquals(1, g.rounds());
    }

    @Test
    void aReconnectWakesEveryWaiter() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            waiting(KEY);
        }
        g.wakeEvery();
        for (int i = 0; i < 4; i++) {
            assertTrue(next() != null);
        }
    }

    @Test
    void aNudgeWakesWithoutALook() throws InterruptedException {
        Waiter a = g.join("aq_1", KEY, null);
        BlockingQueue<Boolean> looks = new ArrayBlockingQueue<>(1);
        long epoch = g.epoch();
        Thread t = new Thread(() -> {
            try {
                looks.add(g.await(a, epoch, Long.MAX_VALUE));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        threads.add(t);
        until("the waiter waits", () -> g.idle() == 1);
        g.nudge();
        assertEquals(Boolean.FALSE, looks.poll(5, TimeUnit.SECONDS));
    }
}
