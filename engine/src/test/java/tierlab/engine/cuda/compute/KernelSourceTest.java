package tierlab.engine.cuda.compute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The kernels' source compiles with NVRTC (which needs no GPU) for Hopper, for each query group the presets
 * use, and a broken source comes back as a value with NVRTC's log. Skipped, with the reason printed, where no
 * libnvrtc is found (TIERLAB_CUDA_LIBS names a folder holding one).
 */
class KernelSourceTest {

    private static Nvrtc nvrtc() {
        ComputeLibraries.Found found = ComputeLibraries.find(null);
        if (found.nvrtc().isEmpty()) {
            System.out.println("KernelSourceTest skipped: no libnvrtc in " + found.folders());
            Assumptions.abort("no libnvrtc");
        }
        found.nvrtcBuiltins().ifPresent(Downcalls::load);
        return Nvrtc.load(found.nvrtc().get());
    }

    @Test
    void kernelsCompileForHopperAtEachGroup() {
        Nvrtc nvrtc = nvrtc();
        for (int group : new int[] {1, 4, 8}) {
            Nvrtc.Compiled compiled = nvrtc.compile(KernelModule.source(), KernelModule.SOURCE,
                    KernelModule.options(9, 0, 128, group));
            assertTrue(compiled.ok(), compiled.log());
            assertTrue(compiled.cubin().length > 10_000, "a CUBIN of " + compiled.cubin().length + " bytes");
        }
    }

    @Test
    void aCompileErrorIsAValueWithTheLog() {
        Nvrtc.Compiled compiled = nvrtc().compile("extern \"C\" __global__ void k() { undeclared(); }", "bad.cu",
                List.of(Nvrtc.architectureOption(9, 0)));
        assertFalse(compiled.ok());
        assertTrue(compiled.log().contains("undeclared"), compiled.log());
    }

    @Test
    void theArchitectureComesFromTheComputeCapability() {
        assertEquals("--gpu-architecture=sm_90", Nvrtc.architectureOption(9, 0));
        assertEquals("--gpu-architecture=sm_120", Nvrtc.architectureOption(12, 0));
    }
}
