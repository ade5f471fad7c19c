package tierlab.bench;

import java.util.List;

/**
 * One workload that the engine and fio both run: an access pattern, a block size and a queue
 * depth. The name is fio's job name and the key of the CSV rows.
 *
 * @param access     what the closed loop issues
 * @param blockBytes bytes per operation (a multiple of 4096, for O_DIRECT)
 * @param queueDepth operations kept in flight
 */
public record BenchCase(Access access, int blockBytes, int queueDepth) {

    /** The four fio {@code rw=} modes the benchmark uses. */
    public enum Access {
        RANDOM_READ("randread", false, true),
        RANDOM_WRITE("randwrite", true, true),
        SEQUENTIAL_READ("read", false, false),
        SEQUENTIAL_WRITE("write", true, false);

        private final String fioRw;
        private final boolean write;
        private final boolean random;

        Access(String fioRw, boolean write, boolean random) {
            this.fioRw = fioRw;
            this.write = write;
            this.random = random;
        }

        /** fio's {@code --rw} value. */
        public String fioRw() {
            return fioRw;
        }

        public boolean write() {
            return write;
        }

        public boolean random() {
            return random;
        }
    }

    public BenchCase {
        if (blockBytes <= 0 || blockBytes % 4096 != 0) {
            throw new IllegalArgumentException("blockBytes must be a positive multiple of 4096, was " + blockBytes);
        }
        if (queueDepth < 1 || queueDepth > 1024) {
            throw new IllegalArgumentException("queueDepth must be between 1 and 1024, was " + queueDepth);
        }
    }

    /** The cases the engine is held to against fio (the sizes and depths KV blocks move at): 128 KiB random read and write at QD 1, 8, 32; 1 MiB sequential read and write at QD 8. */
    public static List<BenchCase> acceptanceCases() {
        int kib128 = 128 << 10;
        int mib1 = 1 << 20;
        return List.of(
                new BenchCase(Access.RANDOM_READ, kib128, 1),
                new BenchCase(Access.RANDOM_READ, kib128, 8),
                new BenchCase(Access.RANDOM_READ, kib128, 32),
                new BenchCase(Access.RANDOM_WRITE, kib128, 1),
                new BenchCase(Access.RANDOM_WRITE, kib128, 8),
                new BenchCase(Access.RANDOM_WRITE, kib128, 32),
                new BenchCase(Access.SEQUENTIAL_READ, mib1, 8),
                new BenchCase(Access.SEQUENTIAL_WRITE, mib1, 8));
    }

    /** "randread-128k-qd8": fio's job name and the CSV key. */
    public String name() {
        return access.fioRw() + "-" + sizeLabel(blockBytes) + "-qd" + queueDepth;
    }

    /** "128k", "1m": fio's {@code --bs} value. */
    public String fioBlockSize() {
        return sizeLabel(blockBytes);
    }

    private static String sizeLabel(int bytes) {
        if (bytes % (1 << 20) == 0) {
            return (bytes >> 20) + "m";
        }
        return (bytes >> 10) + "k";
    }
}
