package tierlab.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.cli.Main;
import tierlab.hunt.testkit.CommandRun;

/** An unreachable standalone master is refused in seconds with one line, before Spark starts and before any output. */
class MasterProbeTest {

    private static final Path QUICKSTART = Path.of("..", "experiments", "catalog", "quickstart.yaml").toAbsolutePath().normalize();

    @TempDir
    Path folder;

    @Test
    void anUnreachableMasterFailsFastInOneLine() {
        long startNs = System.nanoTime();
        CommandRun run = CommandRun.of(Main.newCommandLine(), "run", QUICKSTART.toString(), "--out", folder.resolve("out").toString(),
                "--executor", "spark", "--master", "spark://127.0.0.1:1");
        double seconds = (System.nanoTime() - startNs) / 1e9;

        assertEquals(1, run.exitCode(), run.err());
        assertEquals("tierlab: --executor spark: cannot reach the Spark master spark://127.0.0.1:1 (connection refused)",
                run.err().strip());
        assertTrue(seconds < 10, "refused in " + seconds + " s");
        assertFalse(Files.exists(folder.resolve("out")), "nothing written");
    }

    @Test
    void aListeningMasterAndNonStandaloneMastersPass() throws IOException {
        try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertNull(MasterProbe.unreachable("spark://127.0.0.1:" + listening.getLocalPort()));
            assertNull(MasterProbe.unreachable("spark://127.0.0.1:1,127.0.0.1:" + listening.getLocalPort()),
                    "one reachable master of a high-availability list is enough");
        }
        assertNull(MasterProbe.unreachable("local[2]"));
        assertNull(MasterProbe.unreachable("yarn"));
    }

    @Test
    void badHostsAndPortsAreSaidInWords() {
        assertEquals("cannot reach the Spark master spark://127.0.0.1:x ('127.0.0.1:x' is not HOST:PORT)",
                MasterProbe.unreachable("spark://127.0.0.1:x"));
        assertEquals("cannot reach the Spark master spark://no-such-host.invalid:7077 (unknown host no-such-host.invalid)",
                MasterProbe.unreachable("spark://no-such-host.invalid:7077"));
        assertEquals("cannot reach the Spark master spark://127.0.0.1:1,127.0.0.1:2 (connection refused; connection refused)",
                MasterProbe.unreachable("spark://127.0.0.1:1,127.0.0.1:2"));
    }
}
