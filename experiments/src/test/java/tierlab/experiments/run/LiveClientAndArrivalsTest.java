package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.CommandException;
import tierlab.model.request.RequestOutcome;

/**
 * The run settings validate's workloads use, in experiment files: a closed-loop client in live mode
 * (the live runtime sends the next request when one finishes), and {@code sameInstantArrivalsTogether},
 * a virtual-clock setting off by default whose column only a file that turns it on gets.
 */
class LiveClientAndArrivalsTest {

    @TempDir
    Path folder;

    private static final String WORKLOAD = """
            workload: {type: long-prefill, model: tiny, prompts: 4, promptTokens: 160, clientConcurrency: 1}
            store: {l1CapacityGiB: 0.0005, l2CapacityGiB: 0.01}
            scheduler: {concurrency: 4, prefixCaching: false}
            """;

    private ExperimentLoader.Experiment load(String text) throws IOException {
        return ExperimentLoader.load(Files.writeString(folder.resolve("e.yaml"), "name: e\n" + text));
    }

    @Test
    void aLiveRunServesAClosedLoopClient() throws IOException {
        ExperimentLoader.Experiment experiment = load("mode: live\nlive: {gpu: host}\n" + WORKLOAD);
        RunResult result = new RunExecutor(folder.resolve("scratch")).run(experiment.points().getFirst());
        assertNull(result.failure(), result.failure());
        assertEquals(List.of("cold", "warm"), List.copyOf(result.outcomesByPass().keySet()));
        for (List<RequestOutcome> pass : result.outcomesByPass().values()) {
            assertEquals(4, pass.size());
            List<RequestOutcome> sent = pass.stream().sorted(Comparator.comparingLong(RequestOutcome::arrivalNs)).toList();
            // A client of one sends each request only once the one before it has finished (open loop: all at 0).
            for (int i = 1; i < sent.size(); i++) {
                assertTrue(sent.get(i).arrivalNs() >= sent.get(i - 1).finishNs(), sent.get(i - 1) + " then " + sent.get(i));
            }
        }
    }

    @Test
    void sameInstantArrivalsTogetherIsOffByDefaultAndOnlyAFileThatTurnsItOnHasItsColumn() throws IOException {
        RunConfig off = load(WORKLOAD).points().getFirst().config();
        assertFalse(off.sameInstantArrivalsTogether());
        assertFalse(off.parameters().containsKey("sameInstantArrivalsTogether"), off.parameters().toString());
        RunConfig explicitOff = load("sameInstantArrivalsTogether: false\n" + WORKLOAD).points().getFirst().config();
        assertEquals(off.parameters(), explicitOff.parameters());
        RunConfig on = load("sameInstantArrivalsTogether: true\n" + WORKLOAD).points().getFirst().config();
        assertTrue(on.sameInstantArrivalsTogether());
        assertEquals(true, on.parameters().get("sameInstantArrivalsTogether"));
        RunConfig hybrid = load("mode: hybrid\nsameInstantArrivalsTogether: true\n" + WORKLOAD).points().getFirst().config();
        assertTrue(hybrid.sameInstantArrivalsTogether());
    }

    @Test
    void sameInstantArrivalsTogetherInLiveModeIsOneLineNamingIt() {
        CommandException e = assertThrows(CommandException.class,
                () -> load("mode: live\nsameInstantArrivalsTogether: true\n" + WORKLOAD));
        assertTrue(e.getMessage().contains("e.yaml: sameInstantArrivalsTogether: applies to sim and hybrid mode"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
        CommandException typed = assertThrows(CommandException.class, () -> load("sameInstantArrivalsTogether: often\n" + WORKLOAD));
        assertTrue(typed.getMessage().contains("e.yaml: line 2: sameInstantArrivalsTogether: wrong type: expected true or false"),
                typed.getMessage());
    }
}
