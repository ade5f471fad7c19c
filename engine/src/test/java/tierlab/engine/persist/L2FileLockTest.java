package tierlab.engine.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One run at a time per L2 file, whatever name it is opened by: the lock is on the file's inode
 * (flock), held on a descriptor of its own. Cases with two processes start a real child JVM
 * ({@link L2LockProbe}) on this machine's file system.
 */
class L2FileLockTest {

    @TempDir
    Path dir;

    /** The L2 file and two more names for it: a symlink and a hard link. */
    private List<Path> names() throws IOException {
        Path l2 = dir.resolve("l2.bin");
        Files.write(l2, new byte[8192]);
        Path symlink = Files.createSymbolicLink(dir.resolve("link.bin"), l2);
        Path hardLink = Files.createLink(dir.resolve("hard.bin"), l2);
        return List.of(l2, symlink, hardLink);
    }

    @Test
    void aHeldFileIsRefusedUnderEveryNameInThisProcess() throws IOException {
        List<Path> names = names();
        for (Path holder : names) {
            try (L2FileLock held = L2FileLock.acquire(holder)) {
                assertFalse(held.created());
                for (Path other : names) {
                    L2FileLock.HeldException refused = assertThrows(L2FileLock.HeldException.class, () -> L2FileLock.acquire(other));
                    assertTrue(refused.getMessage().contains(other.toString()) && refused.getMessage().contains("held by another run"),
                            refused.getMessage());
                    assertFalse(refused.getMessage().contains("\n"));
                }
            }
        }
        // Released: every name may lock it again.
        for (Path name : names) {
            L2FileLock.acquire(name).close();
        }
    }

    @Test
    void closingAnotherDescriptorOfTheFileKeepsTheLock() throws IOException {
        Path l2 = names().getFirst();
        try (L2FileLock held = L2FileLock.acquire(l2)) {
            // What the identity trailer, the checksums and the storage port do: open the file and close it again.
            FileChannel.open(l2, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            FileChannel.open(dir.resolve("hard.bin"), StandardOpenOption.READ).close();
            assertThrows(L2FileLock.HeldException.class, () -> L2FileLock.acquire(dir.resolve("link.bin")));
            assertTrue(held.stillNamesLockedFile());
        }
    }

    @Test
    void noLockFileIsLeftThatCouldBeDeleted() throws IOException {
        Path l2 = dir.resolve("new.bin");
        try (L2FileLock held = L2FileLock.acquire(l2)) {
            assertTrue(held.created(), "a missing file is created by the lock");
            try (var entries = Files.list(dir)) {
                assertEquals(List.of(l2), entries.toList(), "the lock is the file's own, nothing beside it");
            }
        }
    }

    @Test
    void replacingTheFileUnderTheLockIsSeen() throws IOException {
        Path l2 = names().getFirst();
        try (L2FileLock held = L2FileLock.acquire(l2)) {
            Files.move(l2, dir.resolve("moved.bin"));
            Files.write(l2, new byte[16]);
            assertFalse(held.stillNamesLockedFile(), "the name now names another file");
            // The new file is another inode: a new run may lock it; the old run must not save an index for the name.
            L2FileLock.acquire(l2).close();
        }
    }

    @Test
    void aSecondProcessIsRefusedUnderEveryNameWhileThisOneHoldsTheFile() throws Exception {
        List<Path> names = names();
        try (L2FileLock held = L2FileLock.acquire(names.getFirst())) {
            for (Path name : names) {
                String said = probe("try", name);
                assertTrue(said.startsWith("held: the L2 file " + name.toAbsolutePath() + " is held by another run"), said);
            }
        }
        assertEquals("locked", probe("try", names.get(1)), "released when this process lets go");
    }

    @Test
    void thisProcessIsRefusedWhileASecondOneHoldsTheFileAndFreeWhenItDies() throws Exception {
        List<Path> names = names();
        Process holder = start("hold", names.get(2));
        try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("locked", out.readLine());
            for (Path name : names) {
                assertThrows(L2FileLock.HeldException.class, () -> L2FileLock.acquire(name));
            }
            // A stale-looking lock cannot be "cleaned up" by deleting a file: the only way is the holder ending.
            holder.destroyForcibly();
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
        }
        L2FileLock.acquire(names.getFirst()).close();
    }

    private static Process start(String mode, Path path) throws IOException {
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                L2LockProbe.class.getName(), mode, path.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static String probe(String mode, Path path) throws Exception {
        Process child = start(mode, path);
        String said = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue(), said);
        return said;
    }
}
