package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.hunt.testkit.CommandRun;

/**
 * Live and hybrid L1/L2 bounds follow the host (memory, RLIMIT_MEMLOCK, free
 * disk) with an explicit override, instead of fixed 4/16 GiB; a run over a bound is refused in one
 * line that gives the bound, its source and the override.
 */
class HostLimitsTest {

    private static final long GIB = 1L << 30;
    /** The GPU host: 125 GiB of RAM, 120 GiB available; as root, so mlock is not bounded. */
    private static final HostLimits.Host H200_ROOT = new HostLimits.Host(120 * GIB, 8L << 20, true);
    /** The same host for a user without CAP_IPC_LOCK and the usual 8 MiB RLIMIT_MEMLOCK. */
    private static final HostLimits.Host H200_USER = new HostLimits.Host(120 * GIB, 8L << 20, false);

    @TempDir
    Path folder;

    @Test
    void l1FollowsThreeQuartersOfAvailableMemoryNotAFixedFourGib() {
        HostLimits.Limit limit = HostLimits.l1("live", null, H200_ROOT);
        assertEquals(90 * GIB, limit.bytes(), "75% of 120 GiB");
        assertTrue(limit.source().contains("75% of the 120.0 GiB of memory available on this host"), limit.source());
        assertNull(HostLimits.l1Refusal("live", 80 * GIB, limit), "an 80 GiB L1 fits the H200 host");
        String refused = HostLimits.l1Refusal("live", 100 * GIB, limit);
        System.out.println("refused: " + refused);
        assertEquals("store.l1CapacityGiB: a live run allocates and pins a real L1 of 100.0 GiB; at most 90.0 GiB here"
                + " (75% of the 120.0 GiB of memory available on this host (MemAvailable)); lower it, or set"
                + " store.l1LimitGiB to override", refused);
    }

    @Test
    void aLiveL1WithoutCapIpcLockIsBoundedByRlimitMemlockAndAHybridOneIsNot() {
        HostLimits.Limit live = HostLimits.l1("live", null, H200_USER);
        assertEquals(8L << 20, live.bytes());
        assertTrue(live.source().startsWith("RLIMIT_MEMLOCK of 8.0 MiB"), live.source());
        assertEquals(90 * GIB, HostLimits.l1("hybrid", null, H200_USER).bytes(), "a hybrid L1 need not be pinned");
        // An unlimited RLIMIT_MEMLOCK (RLIM_INFINITY, -1) binds nothing.
        assertEquals(90 * GIB, HostLimits.l1("live", null, new HostLimits.Host(120 * GIB, -1, false)).bytes());
    }

    @Test
    void theOverrideReplacesTheHostsFigureEitherWay() {
        HostLimits.Limit up = HostLimits.l1("live", 110.0, H200_USER);
        assertEquals(110 * GIB, up.bytes());
        assertEquals("store.l1LimitGiB in the experiment file", up.source());
        assertEquals(GIB / 2, HostLimits.l1("hybrid", 0.5, H200_ROOT).bytes());
        assertEquals(3 * GIB, HostLimits.l2(folder.resolve("l2.bin"), 3.0).bytes());
    }

    @Test
    void l2FollowsTheFreeSpaceWhereTheFileGoesAndCountsAnExistingFileAsRoom() throws IOException {
        Path l2 = folder.resolve("cache/l2.bin");
        long free = Files.getFileStore(folder).getUsableSpace();
        HostLimits.Limit limit = HostLimits.l2(l2, null);
        // The folder does not exist yet: its nearest existing parent's file system is asked.
        assertTrue(Math.abs(limit.bytes() - free) < 64L << 20, limit + " vs " + free);
        assertTrue(limit.source().startsWith("the free space of the file system at " + folder), limit.source());

        Files.createDirectories(l2.getParent());
        Files.write(l2, new byte[1 << 20]);
        HostLimits.Limit withFile = HostLimits.l2(l2, null);
        assertTrue(withFile.source().endsWith("plus the existing L2 file"), withFile.source());
        assertTrue(withFile.bytes() >= Files.getFileStore(folder).getUsableSpace() + (1 << 20) - (64L << 20), withFile.toString());

        String refused = HostLimits.l2Refusal("live", Long.MAX_VALUE / 2, withFile);
        assertTrue(refused.startsWith("store.l2CapacityGiB: a live run writes a real L2 file of ")
                && refused.endsWith("; lower it, or set store.l2LimitGiB to override"), refused);
    }

    private static final String HYBRID = """
            name: limits
            mode: hybrid
            workload: {type: long-prefill, model: tiny, prompts: 4, promptTokens: 160, promptSpreadTokens: 32}
            store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
            """;

    private CommandRun run(String yaml) throws IOException {
        Path file = Files.writeString(folder.resolve("limits.yaml"), yaml);
        return RunCommandTest.run("run", file.toString(), "--out", folder.resolve("out").toString(), "-q");
    }

    @Test
    void runsOverAnOverrideAreRefusedBeforeAnyRunInOneLine() throws IOException {
        CommandRun l1 = run(HYBRID.replace("l2CapacityGiB: 0.01}", "l2CapacityGiB: 0.01, l1LimitGiB: 0.0001}"));
        assertEquals(1, l1.exitCode());
        assertEquals(1, l1.err().strip().lines().count(), l1.err());
        assertTrue(l1.err().contains("store.l1CapacityGiB: a hybrid run allocates a real L1 of 524.0 KiB; at most 104.9 KiB"
                + " here (store.l1LimitGiB in the experiment file)"), l1.err());

        CommandRun l2 = run(HYBRID.replace("l2CapacityGiB: 0.01}", "l2CapacityGiB: 0.01, l2LimitGiB: 0.005}"));
        assertEquals(1, l2.exitCode());
        assertEquals(1, l2.err().strip().lines().count(), l2.err());
        assertTrue(l2.err().contains("store.l2CapacityGiB: a hybrid run writes a real L2 file of 10.2 MiB; at most 5.1 MiB"
                + " here (store.l2LimitGiB in the experiment file); lower it, or set store.l2LimitGiB to override"), l2.err());
        assertTrue(Files.notExists(folder.resolve("out")), "nothing is written");

        CommandRun fits = run(HYBRID.replace("l2CapacityGiB: 0.01}", "l2CapacityGiB: 0.01, l1LimitGiB: 0.001, l2LimitGiB: 0.02}"));
        assertEquals(0, fits.exitCode(), fits.err());
    }
}
