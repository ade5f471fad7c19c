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

    @Test
    void theWritePolicyAndTheAdmissionFilterAreFieldsWithColumns() throws IOException {
        RunConfig defaults = load("").points().getFirst().config();
        assertEquals("write-through", defaults.parameters().get("store.l2WritePolicy"));
        assertEquals("none", defaults.parameters().get("store.l2Admission"));
        ExperimentLoader.Experiment swept = load("sweep:\n  store.l2WritePolicy: [write-back, write-after-hits:2]\n"
                + "  store.l2Admission: [doorkeeper, frequency:3]\n");
        assertEquals(List.of("write-back", "write-back", "write-after-hits:2", "write-after-hits:2"),
                swept.points().stream().map(p -> p.config().store().l2WritePolicy().label()).toList());
        assertEquals(List.of("doorkeeper", "frequency:3", "doorkeeper", "frequency:3"),
                swept.points().stream().map(p -> p.config().parameters().get("store.l2Admission")).toList());
        CommandException bad = assertThrows(CommandException.class, () -> load("  l2WritePolicy: write-around\n"));
        assertTrue(bad.getMessage().contains("store.l2WritePolicy: 'write-around' is not one of write-through, write-back,"
                + " write-after-hits:N"), bad.getMessage());
        CommandException badFilter = assertThrows(CommandException.class, () -> load("  l2Admission: frequency:0\n"));
        assertTrue(badFilter.getMessage().contains("store.l2Admission: frequency:N needs N within [1, 15]"), badFilter.getMessage());
    }
}
