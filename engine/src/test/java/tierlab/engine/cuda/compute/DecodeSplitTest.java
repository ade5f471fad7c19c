package tierlab.engine.cuda.compute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import tierlab.model.geometry.ModelShape;

/** The fast decode path's host arithmetic on Qwen3-8B (8 KV heads) and an H200's 132 multiprocessors, by hand. */
class DecodeSplitTest {

    private static final ForwardLayout QWEN = new ForwardLayout(ModelShape.QWEN3_8B, 16);
    private static final int FAST = ForwardLayout.FAST_DECODE_BLOCKS_PER_SM;

    @Test
    void batchOneSplitsToFillTheGpu() {
        // 8 blocks per split; 4 x 132 = 528 wanted, so 66 splits of ceil(16385 / 66) = 249 tokens.
        int split = QWEN.decodeSplitTokens(1, 16_385, 132, FAST);
        assertEquals(249, split);
        assertEquals(66, ForwardLayout.splits(16_385, split));
    }

    @Test
    void batchSixteenSplitsFewTimes() {
        // 128 blocks per split; ceil(528 / 128) = 5 splits of ceil(4097 / 5) = 820 tokens.
        int split = QWEN.decodeSplitTokens(16, 4_097, 132, FAST);
        assertEquals(820, split);
        assertEquals(5, ForwardLayout.splits(4_097, split));
    }

    @Test
    void aLargeBatchDoesNotSplit() {
        int split = QWEN.decodeSplitTokens(128, 16_385, 132, FAST);
        assertEquals(16_385, split);
        assertEquals(1, ForwardLayout.splits(16_385, split));
    }

    @Test
    void theReferencePathKeepsItsTwoBlocksPerMultiprocessor() {
        // ceil(264 / 8) = 33 splits, ceil(16385 / 33) = 497 tokens each.
        assertEquals(497, QWEN.decodeSplitTokens(1, 16_385, 132));
    }

    @Test
    void sharedMemoryOfTheDecodeKernels() {
        assertEquals(16 * (4 * 128 + 8), ForwardLayout.decodeSharedBytes(4, 128));
        assertEquals(66_048, ForwardLayout.decodeSharedBytes(16, 256));
        ModelShape wide = new ModelShape("wide", 1, 32, 2, 256, 2, 1024, 2048, 1000, 2, 0, 0, 1, 0, 0);
        assertTrue(ForwardLayout.unsupported(wide).orElseThrow().contains("48 KiB"));
    }

    @Test
    void theFastDecodeNeedsAPowerOfTwoLaneGroup() {
        assertTrue(QWEN.fastDecode());
        ModelShape odd = new ModelShape("odd", 1, 8, 2, 96, 2, 1024, 2048, 1000, 2, 0, 0, 1, 0, 0);
        assertFalse(new ForwardLayout(odd, 16).fastDecode());
    }
}
