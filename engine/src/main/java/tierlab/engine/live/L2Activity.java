package tierlab.engine.live;

import java.util.Arrays;

/**
 * What one direction of a live pass's L2 traffic (reads or writes) did on the wall clock: how many
 * operations and bytes, for how long at least one of them was in flight ({@code busyNs}, the union
 * of the operations' intervals from hand-over to the storage port until their completion reached
 * the model thread's queue), the span from the first hand-over to the last completion, and the
 * most and the mean number of operations in flight (the mean over the busy time: the summed
 * operation times / busyNs). {@code bytes / busyNs} is the rate the drive delivered while the run
 * had work for it: what {@code tierlab bench live} holds against the engine's closed loop at the
 * same operation size and queue depth.
 */
public record L2Activity(long ops, long bytes, long busyNs, long spanNs, int maxInFlight, double meanInFlight) {

    public static final L2Activity NONE = new L2Activity(0, 0, 0, 0, 0, 0);

    /** Bytes per second while busy (0 without traffic). */
    public double busyBytesPerSecond() {
        return busyNs == 0 ? 0 : bytes / (busyNs / 1e9);
    }

    /** Mean operation size in bytes (0 without traffic). */
    public long meanOpBytes() {
        return ops == 0 ? 0 : bytes / ops;
    }

    /**
     * Collects the intervals of one direction's operations. Submissions are recorded on the model
     * thread, completions with the time the port reported them (stamped on the ring thread) when
     * the model thread takes them; {@link #finish} folds the intervals into an {@link L2Activity}.
     */
    static final class Recorder {
        private long[] startsNs = new long[64];
        private long[] endsNs = new long[64];
        private int count;
        private long bytes;
        private long completedOps;

        /** An operation of {@code lengthBytes} was handed to the port at {@code startNs}; returns its index. */
        int started(long startNs, long lengthBytes) {
            if (count == startsNs.length) {
                startsNs = Arrays.copyOf(startsNs, count * 2);
                endsNs = Arrays.copyOf(endsNs, count * 2);
            }
            startsNs[count] = startNs;
            endsNs[count] = Long.MIN_VALUE;
            bytes += lengthBytes;
            return count++;
        }

        /** Operation {@code index} completed at {@code endNs}. */
        void completed(int index, long endNs) {
            endsNs[index] = Math.max(endNs, startsNs[index]);
            completedOps++;
        }

        /**
         * The activity of the operations recorded since the last call (every one of them completed),
         * and a fresh start for the next pass.
         */
        L2Activity finish() {
            if (count == 0) {
                return NONE;
            }
            if (completedOps != count) {
                throw new IllegalStateException(count - completedOps + " L2 operations of the pass never completed");
            }
            // Sort the intervals by start: one pass then gives the union, the span and the peak depth.
            Integer[] order = new Integer[count];
            for (int i = 0; i < count; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(startsNs[a], startsNs[b]));
            long busyNs = 0;
            long opNs = 0;
            for (int i = 0; i < count; i++) {
                opNs += endsNs[i] - startsNs[i];
            }
            long runStart = startsNs[order[0]];
            long runEnd = endsNs[order[0]];
            long lastEnd = runEnd;
            for (int k = 1; k < count; k++) {
                int i = order[k];
                if (startsNs[i] > runEnd) {
                    busyNs += runEnd - runStart;
                    runStart = startsNs[i];
                }
                runEnd = Math.max(runEnd, endsNs[i]);
                lastEnd = Math.max(lastEnd, endsNs[i]);
            }
            busyNs += runEnd - runStart;
            L2Activity activity = new L2Activity(count, bytes, busyNs, lastEnd - startsNs[order[0]], peakInFlight(),
                    busyNs == 0 ? 0 : opNs / (double) busyNs);
            count = 0;
            bytes = 0;
            completedOps = 0;
            return activity;
        }

        /** The most intervals open at once: starts and ends swept in time order, an end before a start at the same instant. */
        private int peakInFlight() {
            long[] starts = Arrays.copyOf(startsNs, count);
            long[] ends = Arrays.copyOf(endsNs, count);
            Arrays.sort(starts);
            Arrays.sort(ends);
            int open = 0;
            int peak = 0;
            int e = 0;
            for (long start : starts) {
                while (e < ends.length && ends[e] <= start) {
                    e++;
                    open--;
                }
                open++;
                peak = Math.max(peak, open);
            }
            return peak;
        }
    }
}
