package tierlab.model.geometry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import tierlab.model.testkit.Rejections;

final class GeometryTest {

    private static void assertRejectedNaming(String setting, Executable construction) {
        Rejections.assertRejectedNaming(setting, construction);
    }

    @Test
    void qwen3_8bCosts144KiBPerToken() {
        assertEquals(147_456, ModelShape.QWEN3_8B.kvBytesPerToken());
        assertEquals(144 * 1024, ModelShape.QWEN3_8B.kvBytesPerToken());
        assertEquals(2L * 36 * 8 * 128 * 2, new ModelShape("q", 36, 8, 128, 2).kvBytesPerToken());
    }

    @Test
    void qwen3_8bBlockIs2_25MiBAt16Tokens() {
        Geometry geometry = Geometry.qwen3_8b();
        assertEquals(16, geometry.blockTokens());
        assertEquals(1, geometry.tp());
        assertEquals(2_359_296, geometry.blockBytes());
        assertEquals(2_359_296, geometry.laneBytes(), "with tp = 1 the lane is the whole block");
    }

    @Test
    void laneIsHalfTheBlockWithTp2() {
        Geometry geometry = new Geometry(ModelShape.QWEN3_8B, 16, 2);
        assertEquals(2_359_296, geometry.blockBytes());
        assertEquals(1_179_648, geometry.laneBytes());
        assertEquals(0, geometry.laneBytes() % 4096);
    }

    @Test
    void laneBytesWithTp3And4AreStill4KiBMultiples() {
        // 2,359,296 B = 576 pages, divisible by 3 and 4.
        assertEquals(786_432, new Geometry(ModelShape.QWEN3_8B, 16, 3).laneBytes());
        assertEquals(589_824, new Geometry(ModelShape.QWEN3_8B, 16, 4).laneBytes());
    }

    @Test
    void fullBlocksDropsATrailingPartialBlock() {
        Geometry geometry = Geometry.qwen3_8b();
        assertEquals(0, geometry.fullBlocks(0));
        assertEquals(0, geometry.fullBlocks(15));
        assertEquals(1, geometry.fullBlocks(16));
        assertEquals(1, geometry.fullBlocks(31));
        assertEquals(2, geometry.fullBlocks(32));
        assertEquals(2, geometry.fullBlocks(47));
        assertEquals(62, geometry.fullBlocks(1000));
        assertEquals(1, new Geometry(ModelShape.QWEN3_8B, 512, 1).fullBlocks(1023));
    }

    @Test
    void zeroOrNegativeBlockTokensFailsNamingBlockTokens() {
        assertRejectedNaming("blockTokens", () -> new Geometry(ModelShape.QWEN3_8B, 0, 1));
        assertRejectedNaming("blockTokens", () -> new Geometry(ModelShape.QWEN3_8B, -16, 1));
    }

    @Test
    void zeroOrNegativeTpFailsNamingTp() {
        assertRejectedNaming("tp", () -> new Geometry(ModelShape.QWEN3_8B, 16, 0));
        assertRejectedNaming("tp", () -> new Geometry(ModelShape.QWEN3_8B, 16, -2));
    }

    @Test
    void missingShapeFailsNamingTheModel() {
        assertRejectedNaming("model", () -> new Geometry(null, 16, 1));
    }

    @Test
    void badModelShapeFieldsFailNamingTheField() {
        assertRejectedNaming("layers", () -> new ModelShape("bad", -1, 8, 128, 2));
        assertRejectedNaming("layers", () -> new ModelShape("bad", 0, 8, 128, 2));
        assertRejectedNaming("kvHeads", () -> new ModelShape("bad", 36, 0, 128, 2));
        assertRejectedNaming("headDim", () -> new ModelShape("bad", 36, 8, -128, 2));
        assertRejectedNaming("dtypeBytes", () -> new ModelShape("bad", 36, 8, 128, 0));
    }

    @Test
    void blockBytesThatAreNotA4KiBMultipleFailNamingBlockTokens() {
        ModelShape tiny = new ModelShape("tiny", 1, 1, 1, 2);
        assertEquals(4, tiny.kvBytesPerToken());
        // 16 tokens × 4 B = 64 B: not O_DIRECT aligned.
        assertRejectedNaming("blockTokens", () -> new Geometry(tiny, 16, 1));
        // The same shape with 1024-token blocks gives exactly one page, which is fine.
        Geometry onePage = new Geometry(tiny, 1024, 1);
        assertEquals(4096, onePage.blockBytes());
    }

    @Test
    void tpThatGivesLanesOffThe4KiBGridFailsNamingTp() {
        // 576 pages per block: tp = 5, 7 and 128 do not split it into whole pages.
        for (int tp : new int[] {5, 7, 128}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new Geometry(ModelShape.QWEN3_8B, 16, tp));
            assertTrue(e.getMessage().contains("tp"), e.getMessage());
            assertTrue(e.getMessage().contains("tp=" + tp), "message reports the tp value: " + e.getMessage());
        }
        // A block that is exactly one page cannot be split in two page-aligned lanes.
        assertRejectedNaming("tp", () -> new Geometry(new ModelShape("tiny", 1, 1, 1, 2), 1024, 2));
    }
}
