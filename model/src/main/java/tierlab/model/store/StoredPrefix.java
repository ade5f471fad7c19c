package tierlab.model.store;

/**
 * What a fleet's router sees of one store for a request's chain: the leading blocks the store could
 * serve (visible to it, from block 0) and, of those, the leading ones whose every lane is in its L1.
 *
 * @param l1Blocks     leading blocks held in L1, lane by lane
 * @param storedBlocks leading blocks in L1 or L2 ({@code >= l1Blocks})
 */
public record StoredPrefix(int l1Blocks, int storedBlocks) {}
