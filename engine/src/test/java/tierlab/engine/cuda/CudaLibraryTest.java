package tierlab.engine.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The order libcudart is looked for in, with the host's state passed in. */
class CudaLibraryTest {

    private static final Path TOOLKIT = Path.of("/usr/local/cuda/targets/x86_64-linux/lib");

    private static List<Path> noVersioned(Path root) {
        return List.of();
    }

    @Test
    void anOverrideIsTheOnlyCandidateAndAMissingOneSaysSo() {
        List<Path> candidates = CudaLibrary.candidates("/opt/cuda/libcudart.so.13", "/a:/b", CudaLibraryTest::noVersioned);
        assertEquals(List.of(Path.of("/opt/cuda/libcudart.so.13")), candidates);
        CudaLibrary.Lookup lookup = CudaLibrary.find("/opt/cuda/libcudart.so.13", "/a", CudaLibraryTest::noVersioned, p -> false);
        assertTrue(lookup.library().isEmpty());
        assertEquals("no libcudart at /opt/cuda/libcudart.so.13 (set by tierlab.cudart or TIERLAB_CUDART)", lookup.reason());
    }

    @Test
    void newestSonameFirstThenFolderOrder() {
        List<Path> candidates = CudaLibrary.candidates(null, "/opt/a::/opt/b", root -> List.of(root.resolve("cuda-13.0")));
        List<Path> folders = List.of(Path.of("/opt/a"), Path.of("/opt/b"), TOOLKIT, Path.of("/usr/local/cuda/lib64"),
                Path.of("/usr/local/cuda-13.0/targets/x86_64-linux/lib"), Path.of("/usr/local/cuda-13.0/lib64"),
                Path.of("/usr/lib/x86_64-linux-gnu"));
        assertEquals(3 * folders.size(), candidates.size());
        for (int i = 0; i < folders.size(); i++) {
            assertEquals(folders.get(i).resolve("libcudart.so.13"), candidates.get(i));
            assertEquals(folders.get(i).resolve("libcudart.so.12"), candidates.get(folders.size() + i));
            assertEquals(folders.get(i).resolve("libcudart.so"), candidates.get(2 * folders.size() + i));
        }
    }

    @Test
    void aSoname13AnywhereWinsOverA12EarlierInThePath() {
        Set<Path> present = Set.of(Path.of("/opt/a/libcudart.so.12"), TOOLKIT.resolve("libcudart.so.13"));
        CudaLibrary.Lookup lookup = CudaLibrary.find(null, "/opt/a", CudaLibraryTest::noVersioned, present::contains);
        assertEquals(TOOLKIT.resolve("libcudart.so.13"), lookup.library().orElseThrow());
        CudaLibrary.Lookup only12 = CudaLibrary.find(null, "/opt/a", CudaLibraryTest::noVersioned,
                Set.of(Path.of("/opt/a/libcudart.so.12"))::contains);
        assertEquals(Path.of("/opt/a/libcudart.so.12"), only12.library().orElseThrow());
        CudaLibrary.Lookup none = CudaLibrary.find(null, null, CudaLibraryTest::noVersioned, p -> false);
        assertFalse(none.library().isPresent());
        assertTrue(none.reason().startsWith("no libcudart.so.13, .so.12 or .so"), none.reason());
    }

    @Test
    void versionedToolkitsNewestFirst() {
        List<Path> sorted = CudaLibrary.sortedNewestFirst(List.of(Path.of("/usr/local/cuda-12.9"),
                Path.of("/usr/local/cuda-12.10"), Path.of("/usr/local/cuda-13.0"), Path.of("/usr/local/cuda-11.8")));
        assertEquals(List.of(Path.of("/usr/local/cuda-13.0"), Path.of("/usr/local/cuda-12.10"), Path.of("/usr/local/cuda-12.9"),
                Path.of("/usr/local/cuda-11.8")), sorted);
    }

    @Test
    void driverVersionsReadAsCudaWritesThem() {
        assertEquals("13.0", CudaDevice.version(13000));
        assertEquals("12.8", CudaDevice.version(12080));
    }
}
