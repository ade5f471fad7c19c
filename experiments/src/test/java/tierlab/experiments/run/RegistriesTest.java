package tierlab.experiments.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The loader's names come from registries, and every error lists the known names. */
class RegistriesTest {

    private static String messageOf(Runnable resolve) {
        return assertThrows(IllegalArgumentException.class, resolve::run).getMessage();
    }

    @Test
    void modesSayWhatTheyImply() {
        assertEquals(List.of("sim", "hybrid", "live"), RunMode.REGISTRY.names());
        assertTrue(!RunMode.SIM.realStorage() && RunMode.SIM.virtualClock());
        assertTrue(RunMode.HYBRID.realStorage() && RunMode.HYBRID.virtualClock());
        assertTrue(RunMode.LIVE.realStorage() && !RunMode.LIVE.virtualClock());
        // store.l2File: only the live runner opens its L2 file through WarmStart.
        assertEquals(List.of("live"), RunMode.REGISTRY.names().stream()
                .filter(name -> RunMode.REGISTRY.get("mode", name).persistentL2()).toList());
        assertEquals("mode: unknown mode 'turbo' (known: sim, hybrid, live)",
                messageOf(() -> RunMode.REGISTRY.get("mode", "turbo")));
    }

    @Test
    void workloadTypesModelsAndPresetsListTheKnownNames() {
        Function<String, String> workload = yamlFields -> messageOf(() -> WorkloadSections.resolve(
                new ExperimentFile.WorkloadSection(fields(yamlFields, "type"), fields(yamlFields, "preset"), 4, 500L,
                        null, null, null, null, null, null, fields(yamlFields, "model"), null, null, null, null, null, null, null),
                null, Path.of("."), new LinkedHashMap<>()));
        assertEquals("workload.type: unknown type 'replay' (known: long-prefill, mooncake, synthetic, qwen, azure)",
                workload.apply("type=replay"));
        assertEquals("workload.type: missing (one of long-prefill, mooncake, synthetic, qwen, azure)", workload.apply(""));
        assertEquals("workload.model: unknown model 'llama' (known: qwen3-8b, tiny, llama-3.1-8b, llama-3.1-70b,"
                + " qwen3-32b, deepseek-v3)",
                workload.apply("type=long-prefill,model=llama"));
        assertEquals("workload.preset: unknown preset 'e9' (known: e1, e2, e3)",
                workload.apply("type=long-prefill,preset=e9"));
    }

    @Test
    void baselinesAndDevicePresetsListTheKnownNames() {
        assertEquals("store.baseline: unknown baseline 'gpu' (known: tiered, no-offload, host-memory)",
                messageOf(() -> StoreSections.BASELINES.get("store.baseline", "gpu")));
        assertEquals("device: unknown device profile 'a100' (known: qwen3-8b-h100, qwen3-8b-h200)",
                messageOf(() -> tierlab.sim.device.DeviceProfile.preset("a100")));
    }

    private static String fields(String spec, String key) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String pair : spec.split(",")) {
            if (pair.contains("=")) {
                values.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
            }
        }
        return values.get(key);
    }
}
