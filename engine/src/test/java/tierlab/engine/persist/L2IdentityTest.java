package tierlab.engine.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class L2IdentityTest {
    private static final IndexFile.ExpectedGeometry GEOMETRY = new IndexFile.ExpectedGeometry(10, 8192, 2);

    @TempDir
    Path dir;

    @Test
    void theTrailerSitsInThePageAfterTheLayout() {
        assertEquals(10L * 8192 * 2, L2Identity.trailerOffset(GEOMETRY));
        assertEquals(4096, L2Identity.trailerOffset(new IndexFile.ExpectedGeometry(1, 100, 1)), "rounded up to a page");
    }

    @Test
    void eachWritingSessionKeepsTheFileIdAndTakesANewSession() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        L2Identity.Absent none = assertInstanceOf(L2Identity.Absent.class, L2Identity.read(l2, GEOMETRY));
        assertTrue(none.reason().contains("does not exist"), none.reason());
        L2Identity.Stamp first = L2Identity.beginWriting(l2, GEOMETRY, none);
        assertEquals(L2Identity.trailerOffset(GEOMETRY) + L2Identity.TRAILER_BYTES, Files.size(l2));
        L2Identity.Present found = assertInstanceOf(L2Identity.Present.class, L2Identity.read(l2, GEOMETRY));
        assertEquals(first, found.stamp());
        L2Identity.Stamp second = L2Identity.beginWriting(l2, GEOMETRY, found);
        assertEquals(first.fileId(), second.fileId());
        assertNotEquals(first.session(), second.session());
        assertEquals(second, assertInstanceOf(L2Identity.Present.class, L2Identity.read(l2, GEOMETRY)).stamp());
    }

    @Test
    void aShortZeroedOrTornTrailerIsAbsent() throws Exception {
        Path l2 = dir.resolve("l2.bin");
        Files.write(l2, new byte[100]);
        assertTrue(assertInstanceOf(L2Identity.Absent.class, L2Identity.read(l2, GEOMETRY)).reason().contains("ends before"));
        Files.write(l2, new byte[(int) L2Identity.trailerOffset(GEOMETRY) + L2Identity.TRAILER_BYTES]);
        assertTrue(assertInstanceOf(L2Identity.Absent.class, L2Identity.read(l2, GEOMETRY)).reason().contains("no identity trailer"));
        L2Identity.beginWriting(l2, GEOMETRY, L2Identity.read(l2, GEOMETRY));
        // Flip one byte of the trailer (its stamp is random: writing a fixed value would sometimes write what is there).
        long flipAt = L2Identity.trailerOffset(GEOMETRY) + 30;
        try (FileChannel channel = FileChannel.open(l2, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, flipAt);
            channel.write(ByteBuffer.wrap(new byte[] {(byte) ~one.get(0)}), flipAt);
        }
        assertTrue(assertInstanceOf(L2Identity.Absent.class, L2Identity.read(l2, GEOMETRY)).reason().contains("CRC32C"));
    }
}
