package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;
import tierlab.model.io.StoragePort;

/** A sink that records every completion and notices a ticket reported twice. */
final class CompletionCollector implements StoragePort.CompletionSink {

    private final Map<Long, IoCompletion> byTicket = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> threadNames = new ConcurrentLinkedQueue<>();

    @Override
    public void completed(IoOp.L2Op op, IoCompletion completion) {
        if (op.ticket() != completion.ticket()) {
            problems.add("op ticket " + op.ticket() + " delivered with completion ticket " + completion.ticket());
        }
        if (byTicket.putIfAbsent(completion.ticket(), completion) != null) {
            problems.add("ticket " + completion.ticket() + " reported twice");
        }
        threadNames.add(Thread.currentThread().getName());
        synchronized (this) {
            notifyAll();
        }
    }

    /** Waits until {@code count} distinct tickets arrived; fails the test on timeout or duplicates. */
    Map<Long, IoCompletion> await(int count, Duration timeout) {
        long deadlineNs = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (byTicket.size() < count) {
                long leftNs = deadlineNs - System.nanoTime();
                if (leftNs <= 0) {
                    fail("only " + byTicket.size() + " of " + count + " completions arrived within " + timeout);
                }
                try {
                    wait(Math.max(1, leftNs / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fail("interrupted while waiting for completions");
                }
            }
        }
        assertTrue(problems.isEmpty(), () -> "completion problems: " + problems);
        return Map.copyOf(byTicket);
    }

    /** Submits the ops as one batch and waits for all of them; every ticket exactly once. */
    static Map<Long, IoCompletion> runBatch(StoragePort port, List<? extends IoOp.L2Op> ops) {
        CompletionCollector collector = new CompletionCollector();
        port.submit(ops, collector);
        Map<Long, IoCompletion> result = collector.await(ops.size(), Duration.ofSeconds(60));
        assertEquals(ops.size(), result.size(), "one completion per op");
        for (IoOp.L2Op op : ops) {
            assertTrue(result.containsKey(op.ticket()), "ticket " + op.ticket() + " was not reported");
        }
        return result;
    }

    int size() {
        return byTicket.size();
    }

    List<String> problems() {
        return new ArrayList<>(problems);
    }

    List<String> threadNames() {
        return new ArrayList<>(threadNames);
    }
}
