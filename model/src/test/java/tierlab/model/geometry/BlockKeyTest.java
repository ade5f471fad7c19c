package tierlab.model.geometry;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class BlockKeyTest {

    /** H written out independently: SHA-256 over (parent hi‖lo big-endian ‖ payload), first 16 bytes. */
    private static BlockKey referenceHash(BlockKey parent, byte[] payload) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        if (parent != null) {
            byte[] parentBytes = new byte[16];
            for (int i = 0; i < 8; i++) {
                parentBytes[i] = (byte) (parent.hi() >>> (56 - 8 * i));
                parentBytes[8 + i] = (byte) (parent.lo() >>> (56 - 8 * i));
            }
            sha.update(parentBytes);
        }
        byte[] digest = sha.digest(payload);
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (digest[i] & 0xff);
            lo = (lo << 8) | (digest[8 + i] & 0xff);
        }
        return new BlockKey(hi, lo);
    }

    private static byte[] littleEndianInts(int[] values) {
        byte[] bytes = new byte[values.length * 4];
        for (int i = 0; i < values.length; i++) {
            bytes[4 * i] = (byte) values[i];
            bytes[4 * i + 1] = (byte) (values[i] >>> 8);
            bytes[4 * i + 2] = (byte) (values[i] >>> 16);
            bytes[4 * i + 3] = (byte) (values[i] >>> 24);
        }
        return bytes;
    }

    private static int[] range(int from, int count) {
        int[] tokens = new int[count];
        for (int i = 0; i < count; i++) {
            tokens[i] = from + i;
        }
        return tokens;
    }

    @Test
    void rootIsTheHashOfTheDomainTag() throws Exception {
        assertEquals(referenceHash(null, "tierlab/kv-prefix/v1".getBytes(StandardCharsets.UTF_8)), BlockKey.ROOT);
        assertEquals("063dc78851c970b4a15cb941684c9f29", BlockKey.ROOT.toHex());
    }

    @Test
    void chainIsPinnedToOneExactValue() {
        // Regression pin: computed once from the code. A change here invalidates every persisted L2 index.
        BlockKey key = BlockKey.chain(BlockKey.ROOT, range(1, 16));
        assertEquals("bf6e9e53f457c0b317a28348627502b2", key.toHex());
        assertEquals(key, BlockKey.chain(BlockKey.ROOT, range(1, 16)), "deterministic across calls");

        BlockKey[] prompt = BlockKey.chainOf(range(1000, 32), 16);
        assertEquals("4d73ef09e4218562ee151bece2592a27", prompt[0].toHex());
        assertEquals("c5e6bab9db1b8be15b7c9f7e7600fefa", prompt[1].toHex());
    }

    @Test
    void chainIsTruncatedSha256OfParentBigEndianAndLittleEndianTokens() throws Exception {
        SplittableRandom random = new SplittableRandom(42);
        BlockKey parent = BlockKey.ROOT;
        for (int i = 0; i < 200; i++) {
            int[] tokens = new int[1 + random.nextInt(40)];
            for (int t = 0; t < tokens.length; t++) {
                // Full int range, negatives included, so byte order and sign handling both matter.
                tokens[t] = random.nextInt();
            }
            BlockKey expected = referenceHash(parent, littleEndianInts(tokens));
            BlockKey actual = BlockKey.chain(parent, tokens);
            assertEquals(expected, actual, "step " + i);
            parent = actual;
        }
        // And the pinned value once more, independently.
        assertEquals(referenceHash(BlockKey.ROOT, littleEndianInts(range(1, 16))), BlockKey.chain(BlockKey.ROOT, range(1, 16)));
    }

    @Test
    void toHexIsHiThenLoAsThirtyTwoDigits() {
        BlockKey key = new BlockKey(0x0123456789abcdefL, 0xfedcba9876543210L);
        assertEquals("0123456789abcdeffedcba9876543210", key.toHex());
        assertEquals("01234567", key.toString());
        assertEquals("0000000000000000ffffffffffffffff", new BlockKey(0, -1).toHex());
    }

    @Test
    void equalPrefixesGiveEqualKeys() {
        int[] a = range(7, 64);
        int[] b = Arrays.copyOf(a, 64);
        b[50] = -1; // differs only in block 3
        BlockKey[] keysA = BlockKey.chainOf(a, 16);
        BlockKey[] keysB = BlockKey.chainOf(b, 16);
        assertEquals(4, keysA.length);
        assertEquals(4, keysB.length);
        for (int block = 0; block < 3; block++) {
            assertEquals(keysA[block], keysB[block], "block " + block);
        }
        assertNotEquals(keysA[3], keysB[3]);
    }

    @Test
    void chainOfWalksTheChainFromRoot() {
        int[] prompt = range(100, 48);
        BlockKey[] keys = BlockKey.chainOf(prompt, 16);
        BlockKey parent = BlockKey.ROOT;
        for (int block = 0; block < 3; block++) {
            parent = BlockKey.chain(parent, Arrays.copyOfRange(prompt, 16 * block, 16 * block + 16));
            assertEquals(parent, keys[block]);
        }
    }

    @Test
    void aDifferentEarlierTokenChangesEveryLaterKey() {
        int[] a = range(1, 80);
        int[] b = a.clone();
        b[3] = 999_999; // block 0
        BlockKey[] keysA = BlockKey.chainOf(a, 16);
        BlockKey[] keysB = BlockKey.chainOf(b, 16);
        assertEquals(5, keysA.length);
        Set<BlockKey> all = new HashSet<>();
        for (int block = 0; block < keysA.length; block++) {
            assertNotEquals(keysA[block], keysB[block], "block " + block);
            all.add(keysA[block]);
            all.add(keysB[block]);
        }
        assertEquals(10, all.size(), "no key of one chain appears anywhere in the other");
    }

    @Test
    void sameBlockTokensUnderDifferentParentsGiveDifferentKeys() {
        int[] block = range(5, 16);
        BlockKey underRoot = BlockKey.chain(BlockKey.ROOT, block);
        BlockKey underOther = BlockKey.chain(underRoot, block);
        assertNotEquals(underRoot, underOther);
        // Token order matters, not just the multiset.
        int[] reversed = block.clone();
        for (int i = 0; i < 8; i++) {
            int t = reversed[i];
            reversed[i] = reversed[15 - i];
            reversed[15 - i] = t;
        }
        assertNotEquals(underRoot, BlockKey.chain(BlockKey.ROOT, reversed));
    }

    @Test
    void chainOfIgnoresATrailingPartialBlock() {
        int[] full = range(1, 32);
        int[] withTail = range(1, 47);
        assertArrayEquals(BlockKey.chainOf(full, 16), BlockKey.chainOf(withTail, 16));
        assertEquals(2, BlockKey.chainOf(withTail, 16).length);
        assertEquals(0, BlockKey.chainOf(range(1, 15), 16).length);
        assertEquals(0, BlockKey.chainOf(new int[0], 16).length);
    }

    @Test
    void fromTraceIdIsDeterministicAndDiffersBySubBlockParentAndId() throws Exception {
        BlockKey a = BlockKey.fromTraceId(BlockKey.ROOT, 12345L, 0);
        assertEquals(a, BlockKey.fromTraceId(BlockKey.ROOT, 12345L, 0));
        assertNotEquals(a, BlockKey.fromTraceId(BlockKey.ROOT, 12345L, 1), "sub-block");
        assertNotEquals(a, BlockKey.fromTraceId(BlockKey.ROOT, 12346L, 0), "trace id");
        BlockKey otherParent = BlockKey.chain(BlockKey.ROOT, new int[] {1});
        assertNotEquals(a, BlockKey.fromTraceId(otherParent, 12345L, 0), "parent");

        // Thirty-two 16-token sub-blocks of one 512-token trace block are all distinct.
        Set<BlockKey> subBlocks = new HashSet<>();
        BlockKey parent = BlockKey.ROOT;
        for (int sub = 0; sub < 32; sub++) {
            parent = BlockKey.fromTraceId(parent, 777L, sub);
            subBlocks.add(parent);
        }
        assertEquals(32, subBlocks.size());

        // Same byte layout as the chain: parent big-endian, then id (8 B LE) and sub-block (4 B LE).
        byte[] payload = new byte[12];
        long id = 12345L;
        for (int i = 0; i < 8; i++) {
            payload[i] = (byte) (id >>> (8 * i));
        }
        assertEquals(referenceHash(BlockKey.ROOT, payload), a);
    }

    @Test
    void compareToIsATotalOrderConsistentWithEquals() {
        SplittableRandom random = new SplittableRandom(7);
        List<BlockKey> keys = new ArrayList<>();
        // Extremes and sign-bit cases where signed and unsigned order disagree.
        long[] specials = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE};
        for (long hi : specials) {
            for (long lo : specials) {
                keys.add(new BlockKey(hi, lo));
            }
        }
        for (int i = 0; i < 40; i++) {
            keys.add(new BlockKey(random.nextLong(), random.nextLong()));
            keys.add(new BlockKey(keys.get(keys.size() - 1).hi(), random.nextLong())); // same hi, different lo
        }
        keys.add(new BlockKey(3, 4)); // duplicates by value
        keys.add(new BlockKey(3, 4));
        for (BlockKey x : keys) {
            assertEquals(0, x.compareTo(x));
            for (BlockKey y : keys) {
                int xy = Integer.signum(x.compareTo(y));
                assertEquals(-xy, Integer.signum(y.compareTo(x)), "antisymmetry " + x.toHex() + " " + y.toHex());
                assertEquals(x.equals(y), xy == 0, "consistent with equals " + x.toHex() + " " + y.toHex());
                // The order is that of the 32-digit hex strings (unsigned, hi first).
                assertEquals(Integer.signum(x.toHex().compareTo(y.toHex())), xy, x.toHex() + " vs " + y.toHex());
                for (BlockKey z : keys) {
                    if (xy <= 0 && y.compareTo(z) <= 0) {
                        assertTrue(x.compareTo(z) <= 0, "transitivity");
                    }
                }
            }
        }
        assertTrue(new BlockKey(-1, 0).compareTo(new BlockKey(Long.MAX_VALUE, -1)) > 0, "hi is compared unsigned");
        assertTrue(new BlockKey(5, -1).compareTo(new BlockKey(5, 1)) > 0, "lo is compared unsigned");
        assertTrue(new BlockKey(4, -1).compareTo(new BlockKey(5, 0)) < 0, "hi decides before lo");
    }
}
