package tierlab.model.util;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * One master seed, one independent generator per named component. A component's stream depends
 * only on the master seed and its name, never on how many other components exist or in which
 * order they were created, so adding a fault injector does not change the workload's arrivals.
 */
public final class SeedTree {
    private final long masterSeed;

    public SeedTree(long masterSeed) {
        this.masterSeed = masterSeed;
    }

    public long masterSeed() {
        return masterSeed;
    }

    /** The seed of a named component: the master seed mixed with a stable hash of the name. */
    public long seedOf(String component) {
        long h = 0xcbf29ce484222325L;
        for (byte b : component.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        return mix(masterSeed ^ mix(h));
    }

    /** A fresh generator for a named component. */
    public SplittableRandom random(String component) {
        return new SplittableRandom(seedOf(component));
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
