package tierlab.model.drive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.io.IoCompletion;
import tierlab.model.io.IoOp;

/** The watchdog's two rules, completion by completion, with its invariants checked after each. */
class ProgressWatchdogTest {

    private static final IoOp.L2Read READ = new IoOp.L2Read(1, 0, 4096, 0, 1, 1);
    private static final IoOp.L2Write WRITE = new IoOp.L2Write(2, 0, 0, 4096);
    private static final IoOp.Compute STEP = new IoOp.Compute(3, 0, List.of());

    @Test
    void aComputeStepResetsTheCountOfCompletionsWithoutProgress() {
        ProgressWatchdog watchdog = new ProgressWatchdog(3, 100);
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 3; i++) {
                watchdog.observe(WRITE, IoCompletion.ok(2));
                watchdog.checkInvariants();
            }
            watchdog.observe(STEP, IoCompletion.ok(3));
            watchdog.checkInvariants();
        }
        watchdog.observe(READ, IoCompletion.ok(1));
        watchdog.observe(READ, IoCompletion.ok(1));
        watchdog.observe(READ, IoCompletion.ok(1));
        ProgressWatchdog.RunStopped stopped = assertThrows(ProgressWatchdog.RunStopped.class,
                () -> watchdog.observe(READ, IoCompletion.ok(1)));
        assertEquals("no progress: 3 completions without a compute step (stopped by the progress watchdog)", stopped.getMessage());
    }

    @Test
    void oneSuccessfulReadResetsTheRunOfFailedReadsAndWritesCountApart() {
        ProgressWatchdog watchdog = new ProgressWatchdog(1_000, 4);
        for (int i = 0; i < 3; i++) {
            watchdog.observe(READ, IoCompletion.failed(1, "EIO"));
            watchdog.observe(WRITE, IoCompletion.failed(2, "ENOSPC"));
            watchdog.checkInvariants();
        }
        watchdog.observe(READ, IoCompletion.ok(1));
        watchdog.observe(READ, IoCompletion.failed(1, "EIO"));
        watchdog.checkInvariants();
        ProgressWatchdog.RunStopped stopped = assertThrows(ProgressWatchdog.RunStopped.class,
                () -> watchdog.observe(WRITE, IoCompletion.failed(2, "ENOSPC")));
        assertEquals("the L2 device failed every write: 4 in a row, none succeeded (last error: ENOSPC)", stopped.getMessage());
    }

    @Test
    void limitsArePositive() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> new ProgressWatchdog(0, 1));
        assertTrue(refused.getMessage().startsWith("watchdog limits must be >= 1"), refused.getMessage());
    }
}
