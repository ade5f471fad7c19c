package tierlab.experiments;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import tierlab.model.testkit.ReferenceLru;

/**
 * Independent, deliberately plain implementations of five replacement policies, written from their
 * papers with the JDK's collections and nothing of tierlab's policy code, to check tierlab's replay
 * hit for hit. Each takes the flattened block reference stream and a capacity and returns the hits.
 * Speed does not matter here; obviousness does.
 */
final class ReferenceCaches {

    private ReferenceCaches() {
    }

    /** LRU: the testkit's reference LRU, a LinkedHashMap in access order evicting its eldest entry. */
    static long lruHits(long[] references, int capacity) {
        return ReferenceLru.hits(references, capacity);
    }

    /** FIFO: a queue of insertions and a set of residents; a hit changes nothing. */
    static long fifoHits(long[] references, int capacity) {
        ArrayDeque<Long> queue = new ArrayDeque<>();
        Set<Long> resident = new HashSet<>();
        long hits = 0;
        for (long key : references) {
            if (resident.contains(key)) {
                hits++;
                continue;
            }
            if (resident.size() >= capacity) {
                resident.remove(queue.removeFirst());
            }
            queue.addLast(key);
            resident.add(key);
        }
        return hits;
    }

    /**
     * ARC as in Megiddo and Modha, FAST'03, Figure 4 ("ARC(c)"), with p adapted by whole numbers
     * (δ1 = max(1, ⌊|B2| / |B1|⌋), δ2 = max(1, ⌊|B1| / |B2|⌋)). Lists are LinkedHashSets whose
     * iteration order is LRU first.
     *
     * @param storeOrder false: the paper exactly (a ghost hit adapts p before REPLACE, REPLACE knows
     *                   the incoming key for its tie rule, case IV.A with |T1| = c drops T1's LRU page
     *                   without a ghost). true: the order of calls a store imposes, which tierlab's
     *                   ArcPolicy documents: the victim is chosen before the incoming key is looked up
     *                   (so with the old p and no tie rule), the victim always becomes a ghost, and the
     *                   ghost lists are trimmed afterwards (B1 while |T1| + |B1| &gt; c, then B2, or B1
     *                   when B2 is empty, while |B1| + |B2| &gt; c).
     */
    static long arcHits(long[] references, int capacity, boolean storeOrder) {
        Arc arc = new Arc(capacity);
        long hits = 0;
        for (long key : references) {
            if (storeOrder ? arc.referenceInStoreOrder(key) : arc.reference(key)) {
                hits++;
            }
        }
        return hits;
    }

    private static final class Arc {
        final int c;
        long p;
        final LinkedHashSet<Long> t1 = new LinkedHashSet<>();
        final LinkedHashSet<Long> t2 = new LinkedHashSet<>();
        final LinkedHashSet<Long> b1 = new LinkedHashSet<>();
        final LinkedHashSet<Long> b2 = new LinkedHashSet<>();

        Arc(int capacity) {
            this.c = capacity;
        }

        /** The paper's ARC(c) for one request; returns whether it hit. */
        boolean reference(long x) {
            if (t1.remove(x) || t2.remove(x)) {               // case I
                t2.add(x);
                return true;
            }
            if (b1.contains(x)) {                              // case II
                p = Math.min(c, p + Math.max(1, b2.size() / b1.size()));
                replace(x);
                b1.remove(x);
                t2.add(x);
                return false;
            }
            if (b2.contains(x)) {                              // case III
                p = Math.max(0, p - Math.max(1, b1.size() / b2.size()));
                replace(x);
                b2.remove(x);
                t2.add(x);
                return false;
            }
            int l1 = t1.size() + b1.size();                    // case IV
            int total = l1 + t2.size() + b2.size();
            if (l1 == c) {
                if (t1.size() < c) {
                    removeFirst(b1);
                    replace(x);
                } else {
                    removeFirst(t1);
                }
            } else if (total >= c) {
                if (total == 2 * c) {
                    removeFirst(b2);
                }
                replace(x);
            }
            t1.add(x);
            return false;
        }

        void replace(long x) {
            if (!t1.isEmpty() && (t1.size() > p || (b2.contains(x) && t1.size() == p))) {
                b1.add(removeFirst(t1));
            } else {
                b2.add(removeFirst(t2));
            }
        }

        /** The same policy driven as a store drives it: evict (if full), then insert. */
        boolean referenceInStoreOrder(long x) {
            if (t1.remove(x) || t2.remove(x)) {
                t2.add(x);
                return true;
            }
            if (t1.size() + t2.size() >= c) {
                boolean fromT1 = t1.size() > p ? true : t2.isEmpty();
                if (fromT1) {
                    b1.add(removeFirst(t1));
                } else {
                    b2.add(removeFirst(t2));
                }
                trimGhosts();
            }
            if (b1.remove(x)) {
                p = Math.min(c, p + Math.max(1, b2.size() / (b1.size() + 1)));
                t2.add(x);
            } else if (b2.remove(x)) {
                p = Math.max(0, p - Math.max(1, b1.size() / (b2.size() + 1)));
                t2.add(x);
            } else {
                t1.add(x);
            }
            trimGhosts();
            return false;
        }

        void trimGhosts() {
            while (!b1.isEmpty() && t1.size() + b1.size() > c) {
                removeFirst(b1);
            }
            while (b1.size() + b2.size() > c) {
                removeFirst(b2.isEmpty() ? b1 : b2);
            }
        }

        static long removeFirst(LinkedHashSet<Long> list) {
            Iterator<Long> oldest = list.iterator();
            long key = oldest.next();
            oldest.remove();
            return key;
        }
    }

    /**
     * S3-FIFO (Yang et al., SOSP'23, Algorithm 1) at tierlab's documented defaults: small queue of
     * max(1, ⌊0.1 c⌋), ghost of c keys, 2-bit frequencies, a small key accessed at least once moves to
     * main (keeping its frequency) instead of leaving; main is a CLOCK that decrements frequencies.
     */
    static long s3FifoHits(long[] references, int capacity) {
        int smallTarget = Math.max(1, capacity / 10);
        ArrayDeque<Long> small = new ArrayDeque<>();
        ArrayDeque<Long> main = new ArrayDeque<>();
        LinkedHashSet<Long> ghost = new LinkedHashSet<>();
        Map<Long, Integer> frequency = new HashMap<>();     // resident keys only
        long hits = 0;
        for (long key : references) {
            Integer seen = frequency.get(key);
            if (seen != null) {
                frequency.put(key, Math.min(3, seen + 1));
                hits++;
                continue;
            }
            if (frequency.size() >= capacity) {
                boolean evicted = false;
                if (small.size() >= smallTarget || main.isEmpty()) {
                    while (!evicted && !small.isEmpty()) {
                        long tail = small.removeFirst();
                        if (frequency.get(tail) >= 1) {
                            main.addLast(tail);
                        } else {
                            frequency.remove(tail);
                            ghost.add(tail);
                            if (ghost.size() > capacity) {
                                ghost.remove(ghost.iterator().next());
                            }
                            evicted = true;
                        }
                    }
                }
                while (!evicted) {
                    long tail = main.removeFirst();
                    int count = frequency.get(tail);
                    if (count > 0) {
                        frequency.put(tail, count - 1);
                        main.addLast(tail);
                    } else {
                        frequency.remove(tail);
                        evicted = true;
                    }
                }
            }
            frequency.put(key, 0);
            if (ghost.remove(key)) {
                main.addLast(key);
            } else {
                small.addLast(key);
            }
        }
        return hits;
    }

    /**
     * SIEVE (Zhang et al., NSDI'24, Figure 2): new objects at the head, a hit sets the visited bit, the
     * hand walks from the tail toward the head clearing bits and evicts the first unvisited object,
     * then rests on that object's newer neighbour (wrapping to the tail).
     */
    static long sieveHits(long[] references, int capacity) {
        Map<Long, SieveNode> nodes = new HashMap<>();
        SieveNode head = null;   // newest
        SieveNode tail = null;   // oldest
        SieveNode hand = null;
        long hits = 0;
        for (long key : references) {
            SieveNode found = nodes.get(key);
            if (found != null) {
                found.visited = true;
                hits++;
                continue;
            }
            if (nodes.size() >= capacity) {
                SieveNode object = hand != null ? hand : tail;
                while (object.visited) {
                    object.visited = false;
                    object = object.newer != null ? object.newer : tail;
                }
                hand = object.newer;
                // unlink
                if (object.older != null) {
                    object.older.newer = object.newer;
                } else {
                    tail = object.newer;
                }
                if (object.newer != null) {
                    object.newer.older = object.older;
                } else {
                    head = object.older;
                }
                nodes.remove(object.key);
            }
            SieveNode node = new SieveNode(key);
            node.older = head;
            if (head != null) {
                head.newer = node;
            } else {
                tail = node;
            }
            head = node;
            nodes.put(key, node);
        }
        return hits;
    }

    private static final class SieveNode {
        final long key;
        SieveNode newer;
        SieveNode older;
        boolean visited;

        SieveNode(long key) {
            this.key = key;
        }
    }

    /**
     * LFU with aging as docs/policies.md states it, by brute force: counts in a map, the victim found by
     * scanning every resident key for the smallest (count, last use); every ⌈agingFactor × c⌉
     * references all counts are halved.
     */
    static long lfuHits(long[] references, int capacity, double agingFactor) {
        Map<Long, long[]> countAndLastUse = new HashMap<>();
        long interval = agingFactor == 0 ? 0 : (long) Math.ceil(agingFactor * capacity);
        long clock = 0;
        long sinceHalving = 0;
        long hits = 0;
        for (long key : references) {
            long[] entry = countAndLastUse.get(key);
            if (entry != null) {
                entry[0]++;
                entry[1] = clock++;
                hits++;
            } else {
                if (countAndLastUse.size() >= capacity) {
                    long victim = 0;
                    long[] smallest = null;
                    for (Map.Entry<Long, long[]> candidate : countAndLastUse.entrySet()) {
                        long[] value = candidate.getValue();
                        if (smallest == null || value[0] < smallest[0] || (value[0] == smallest[0] && value[1] < smallest[1])) {
                            smallest = value;
                            victim = candidate.getKey();
                        }
                    }
                    countAndLastUse.remove(victim);
                }
                countAndLastUse.put(key, new long[] {1, clock++});
            }
            if (interval > 0 && ++sinceHalving == interval) {
                sinceHalving = 0;
                countAndLastUse.values().forEach(value -> value[0] /= 2);
            }
        }
        return hits;
    }

    /** Segmented LRU with two access-ordered LinkedHashSets; protected holds ⌊protectedRatio × c⌋. */
    static long slruHits(long[] references, int capacity, double protectedRatio) {
        long protectedCapacity = (long) Math.floor(protectedRatio * capacity);
        LinkedHashSet<Long> probation = new LinkedHashSet<>();
        LinkedHashSet<Long> protectedSegment = new LinkedHashSet<>();
        long hits = 0;
        for (long key : references) {
            if (protectedSegment.remove(key)) {
                protectedSegment.add(key);
                hits++;
            } else if (probation.remove(key)) {
                protectedSegment.add(key);
                if (protectedSegment.size() > protectedCapacity) {
                    probation.add(Arc.removeFirst(protectedSegment));
                }
                hits++;
            } else {
                if (probation.size() + protectedSegment.size() >= capacity) {
                    Arc.removeFirst(probation.isEmpty() ? protectedSegment : probation);
                }
                probation.add(key);
            }
        }
        return hits;
    }

    /** Full 2Q (Johnson and Shasha, VLDB'94, Figure 2) with Kin = ⌊kin × c⌋ and Kout = ⌊kout × c⌋. */
    static long twoQueueHits(long[] references, int capacity, double kin, double kout) {
        long kinEntries = (long) Math.floor(kin * capacity);
        long koutEntries = (long) Math.floor(kout * capacity);
        LinkedHashSet<Long> a1in = new LinkedHashSet<>();
        LinkedHashSet<Long> a1out = new LinkedHashSet<>();
        LinkedHashSet<Long> am = new LinkedHashSet<>();
        long hits = 0;
        for (long key : references) {
            if (am.remove(key)) {
                am.add(key);
                hits++;
                continue;
            }
            if (a1in.contains(key)) {
                hits++;
                continue;
            }
            if (a1in.size() + am.size() >= capacity) {          // reclaimfor
                if (a1in.size() > kinEntries || am.isEmpty()) {
                    a1out.add(Arc.removeFirst(a1in));
                    if (a1out.size() > koutEntries) {
                        Arc.removeFirst(a1out);
                    }
                } else {
                    Arc.removeFirst(am);
                }
            }
            if (a1out.remove(key)) {
                am.add(key);
            } else {
                a1in.add(key);
            }
        }
        return hits;
    }
}
