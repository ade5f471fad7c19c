package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tierlab.experiments.CommandException;
import tierlab.model.policy.BipPolicy;

/** Policy knobs are store fields by their declared names: bound, checked and given a column generically. */
class StoreSectionsTest {

    @TempDir
    Path folder;

    private ExperimentLoader.Experiment load(String store) throws IOException {
        Path file = folder.resolve("knobs.yaml");
        Files.writeString(file, """
                name: knobs
                workload: {type: long-prefill, prompts: 4, promptTokens: 500}
                store:
                  l1CapacityGiB: 1
                """ + store);
        return ExperimentLoader.load(file);
    }

    @Test
    void aPolicyKnobReachesTheSettingsAndItsColumn() throws IOException {
        ExperimentLoader.Experiment experiment = load("  policy: bip\n  mruInterval: 4\n");
        RunConfig config = experiment.points().getFirst().config();
        assertEquals(4, config.store().policyParameters().get(BipPolicy.MRU_INTERVAL));
        assertEquals(4, config.parameters().get("store.mruInterval"));
        List<String> columns = List.copyOf(config.parameters().keySet());
        assertEquals(columns.indexOf("store.policy") + 1, columns.indexOf("store.mruInterval"), "the knob follows the policy");
    }

    @Test
    void anUnsetKnobIsItsDefaultAndASweptKnobIsAnAxis() throws IOException {
        assertEquals(32, load("").points().getFirst().config().parameters().get("store.mruInterval"));
        ExperimentLoader.Experiment swept = load("  policy: bip\nsweep:\n  store.mruInterval: [1, 8]\n");
        assertEquals(List.of(1, 8), swept.points().stream().map(p -> p.config().store().mruInterval()).toList());
    }

    @Test
    void aBadKnobIsNamed() {
        CommandException wrongType = assertThrows(CommandException.class, () -> load("  mruInterval: four\n"));
        assertTrue(wrongType.getMessage().contains("store.mruInterval: wrong type: expected a whole number"), wrongType.getMessage());
        CommandException tooSmall = assertThrows(CommandException.class, () -> load("  mruInterval: 0\n"));
        assertTrue(tooSmall.getMessage().contains("store: mruInterval must be >= 1, was 0"), tooSmall.getMessage());
        CommandException unknown = assertThrows(CommandException.class, () -> load("  mruIntervall: 4\n"));
        assertTrue(unknown.getMessage().contains("line 5: unknown field 'store.mruIntervall' (known in store: ")
                && unknown.getMessage().contains("mruInterval, policy"), unknown.getMessage());
    }
}
