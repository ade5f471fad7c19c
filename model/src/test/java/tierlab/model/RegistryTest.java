package tierlab.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.geometry.ModelShape;

class RegistryTest {

    private final Registry<Integer> sizes = Registry.<Integer>of("size").add("small", 1).add("large", 9).build();

    @Test
    void namesKeepTheirRegistrationOrder() {
        assertEquals(List.of("small", "large"), sizes.names());
        assertEquals("small, large", sizes.known());
        assertEquals(9, sizes.get("size", "large"));
        assertTrue(sizes.contains("small") && !sizes.contains("medium"));
        assertTrue(sizes.find("medium").isEmpty());
    }

    @Test
    void anUnknownOrMissingNameIsOneLineNamingTheFieldAndTheKnownNames() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> sizes.get("box.size", "medium"));
        assertEquals("box.size: unknown size 'medium' (known: small, large)", unknown.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> sizes.get("box.size", null));
        assertEquals("box.size: missing (one of small, large)", missing.getMessage());
    }

    @Test
    void aNameRegisteredTwiceIsRefused() {
        assertThrows(IllegalStateException.class, () -> Registry.<Integer>of("size").add("small", 1).add("small", 2));
    }

    @Test
    void modelShapesAreRegisteredUnderTheirOwnNames() {
        assertEquals(List.of("qwen3-8b", "tiny", "llama-3.1-8b", "llama-3.1-70b", "qwen3-32b", "deepseek-v3"),
                ModelShape.PRESETS.names());
        for (String name : ModelShape.PRESETS.names()) {
            assertEquals(name, ModelShape.PRESETS.get("model", name).name());
        }
        assertSame(ModelShape.QWEN3_8B, ModelShape.PRESETS.get("workload.model", "qwen3-8b"));
        assertEquals(512, ModelShape.TINY.kvBytesPerToken());
    }
}
