package tierlab.hunt;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One step of a generated schedule: an operation or a scheduling choice. Indices are taken modulo
 * what exists when the step runs (pending operations, readers, writers, running requests), so every
 * step is meaningful in every prefix of a schedule and shrinking can drop steps freely. A step whose
 * operation does not apply at that moment (load without a lease, completion with nothing pending)
 * is a no-op, recorded as skipped.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "op")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Step.Lookup.class, name = "lookup"),
        @JsonSubTypes.Type(value = Step.Acquire.class, name = "acquire"),
        @JsonSubTypes.Type(value = Step.Load.class, name = "load"),
        @JsonSubTypes.Type(value = Step.Release.class, name = "release"),
        @JsonSubTypes.Type(value = Step.Save.class, name = "save"),
        @JsonSubTypes.Type(value = Step.Preempt.class, name = "preempt"),
        @JsonSubTypes.Type(value = Step.Complete.class, name = "complete"),
        @JsonSubTypes.Type(value = Step.Arrive.class, name = "arrive"),
})
public sealed interface Step {

    /** Store level: reader {@code reader} looks up the first {@code blocks} blocks of a chain plus {@code extraTokens}. */
    record Lookup(int reader, int chain, int blocks, int extraTokens) implements Step {
        @Override public String toString() { return "lookup(r" + reader + ", c" + chain + "[" + blocks + "]+" + extraTokens + ")"; }
    }

    /** Store level: the reader acquires with its last lookup's result, however outdated (a prefetch). */
    record Acquire(int reader) implements Step {
        @Override public String toString() { return "acquire(r" + reader + ")"; }
    }

    /** Store level: the reader's lease is copied to the GPU. */
    record Load(int reader) implements Step {
        @Override public String toString() { return "load(r" + reader + ")"; }
    }

    /** Store level: the reader's lease is released whole (finish, abort, preemption). */
    record Release(int reader) implements Step {
        @Override public String toString() { return "release(r" + reader + ")"; }
    }

    /** Store level: a new writer computes the first {@code blocks} blocks of a chain on fresh GPU blocks and saves them. */
    record Save(int chain, int blocks) implements Step {
        @Override public String toString() { return "save(c" + chain + "[" + blocks + "])"; }
    }

    /**
     * Store level: writer {@code target} (modulo writers so far) is preempted: its saves are cancelled
     * and its GPU blocks are reused as soon as the store says no staging copy reads them.
     * Engine level: running request {@code target} (modulo running ones) is preempted.
     */
    record Preempt(int target) implements Step {
        @Override public String toString() { return "preempt(" + target + ")"; }
    }

    /** Delivers the completion of pending operation {@code pick} (modulo pending), successful or failed (EIO). */
    record Complete(int pick, boolean ok) implements Step {
        @Override public String toString() { return (ok ? "complete(" : "fail(") + pick + ")"; }
    }

    /** Engine level: a request for the first {@code blocks} blocks of a chain plus {@code extraTokens} arrives. */
    record Arrive(int chain, int blocks, int extraTokens, int outputTokens) implements Step {
        @Override public String toString() { return "arrive(c" + chain + "[" + blocks + "]+" + extraTokens + ", out " + outputTokens + ")"; }
    }
}
