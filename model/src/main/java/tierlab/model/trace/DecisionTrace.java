package tierlab.model.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * A running hash of every decision the model makes (classifications, admissions, evictions,
 * emitted operations), so that two runs can be compared bit for bit by one number (invariant I11).
 *
 * <p>The hash is a 64-bit mix of stable values only: event kinds are hashed with
 * {@link String#hashCode()}, whose algorithm the Java language fixes, and arguments are longs.
 * Keeping the last few events as text helps explain a divergence.
 */
public final class DecisionTrace {
    private static final long SEED = 0x9E3779B97F4A7C15L;

    private long hash = SEED;
    private long eventCount;
    private final int keepLast;
    private final ArrayList<String> recent = new ArrayList<>();
    private final DecisionListener listener;
    /** Whether an event's values are needed beyond the hash (the text log or a listener). */
    private final boolean logging;

    /** Receives every event, for an event log; may be null. */
    public interface DecisionListener {
        void onDecision(String kind, long[] values);
    }

    public DecisionTrace() {
        this(0, null);
    }

    public DecisionTrace(int keepLast, DecisionListener listener) {
        this.keepLast = keepLast;
        this.listener = listener;
        this.logging = keepLast > 0 || listener != null;
    }

    // Fixed-arity forms of record(kind, values...): the model records about 400 decisions per
    // simulated second, and a varargs call allocates its long[] at every call site the JIT does not
    // inline all the way (in a Mooncake replay's allocation profile long[] was about 9% of the bytes,
    // most of it these arrays; docs/performance.md). They hash exactly
    // as the varargs form does (the same mix over the same values in the same order) and build the
    // array only when the text log or a listener asks for it.

    public void record(String kind) {
        hash = mix(hash ^ kind.hashCode());
        eventCount++;
        if (logging) {
            recordedSlow(kind, new long[0]);
        }
    }

    public void record(String kind, long a) {
        hash = mix(mix(hash ^ kind.hashCode()) ^ a);
        eventCount++;
        if (logging) {
            recordedSlow(kind, new long[] {a});
        }
    }

    public void record(String kind, long a, long b) {
        hash = mix(mix(mix(hash ^ kind.hashCode()) ^ a) ^ b);
        eventCount++;
        if (logging) {
            recordedSlow(kind, new long[] {a, b});
        }
    }

    public void record(String kind, long a, long b, long c) {
        hash = mix(mix(mix(mix(hash ^ kind.hashCode()) ^ a) ^ b) ^ c);
        eventCount++;
        if (logging) {
            recordedSlow(kind, new long[] {a, b, c});
        }
    }

    public void record(String kind, long a, long b, long c, long d) {
        hash = mix(mix(mix(mix(mix(hash ^ kind.hashCode()) ^ a) ^ b) ^ c) ^ d);
        eventCount++;
        if (logging) {
            recordedSlow(kind, new long[] {a, b, c, d});
        }
    }

    public void record(String kind, long a, long b, long c, long d, long e) {
        hash = mix(mix(mix(mix(mix(mix(hash ^ kind.hashCode()) ^ a) ^ b) ^ c) ^ d) ^ e);
        eventCount++;
        if (logging) {
            recordedSlow(kind, new long[] {a, b, c, d, e});
        }
    }

    public void record(String kind, long a, long b, long c, long d, long e, long f) {
        hash = mix(mix(mix(mix(mix(mix(mix(hash ^ kind.hashCode()) ^ a) ^ b) ^ c) ^ d) ^ e) ^ f);
        eventCount++;
        if (logging) {
            recordedSlow(kind, new long[] {a, b, c, d, e, f});
        }
    }

    public void record(String kind, long... values) {
        long h = mix(hash ^ kind.hashCode());
        for (long value : values) {
            h = mix(h ^ value);
        }
        hash = h;
        eventCount++;
        if (logging) {
            recordedSlow(kind, values);
        }
    }

    /** Keeps the text of the last events or feeds the listener: off the hot path when neither is asked for. */
    private void recordedSlow(String kind, long[] values) {
        if (keepLast > 0) {
            if (recent.size() == keepLast) {
                recent.remove(0);
            }
            StringBuilder text = new StringBuilder(kind);
            for (long value : values) {
                text.append(' ').append(value);
            }
            recent.add(text.toString());
        }
        if (listener != null) {
            listener.onDecision(kind, values.clone());
        }
    }

    public long hash() {
        return hash;
    }

    public long eventCount() {
        return eventCount;
    }

    public List<String> recent() {
        return List.copyOf(recent);
    }

    /** A strong 64-bit finaliser (the one SplittableRandom uses), so single-bit changes spread. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
