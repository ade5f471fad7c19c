package tierlab.model.policy;

import java.util.Arrays;

/**
 * What a replacement policy is built from: the cache size, its knobs, and, for policies that
 * declare {@link PolicyCapability#NEEDS_FUTURE_REFERENCES}, the future reference stream. Each
 * policy reads only its own knobs, through its declared {@link PolicyParameter}s.
 *
 * @param capacityEntries  the cache capacity in entries (blocks); sizes ARC's and S3-FIFO's
 *                         queues and ghost lists. At least 1.
 * @param parameters       the knobs; an unset knob reads as its declared default
 * @param futureReferences the future reference stream (keys in the order they will be inserted or
 *                         accessed) for a policy that needs it, else {@code null}. The array is
 *                         shared, not copied (traces are large), and must not change.
 */
public record PolicyOptions(long capacityEntries, PolicyParameters parameters, long[] futureReferences) {

    public PolicyOptions {
        if (capacityEntries < 1) {
            throw new IllegalArgumentException("capacityEntries must be >= 1, was " + capacityEntries);
        }
        parameters = parameters == null ? PolicyParameters.defaults() : parameters;
    }

    /** The reference system's defaults for a cache of {@code capacityEntries}, without a future trace. */
    public static PolicyOptions defaults(long capacityEntries) {
        return new PolicyOptions(capacityEntries, PolicyParameters.defaults(), null);
    }

    /** The value of one knob (its default when not set). */
    public <T> T get(PolicyParameter<T> parameter) {
        return parameters.get(parameter);
    }

    /** The same options with one knob set (checked against its declaration). */
    public PolicyOptions with(String parameterName, Object value) {
        return new PolicyOptions(capacityEntries, parameters.with(parameterName, value), futureReferences);
    }

    public PolicyOptions withFutureReferences(long[] newFutureReferences) {
        return new PolicyOptions(capacityEntries, parameters, newFutureReferences);
    }

    // The generated record members would compare and print the array by identity; options are
    // values, so compare and print them by content.

    @Override
    public boolean equals(Object other) {
        return other instanceof PolicyOptions that
                && capacityEntries == that.capacityEntries
                && parameters.equals(that.parameters)
                && Arrays.equals(futureReferences, that.futureReferences);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Long.hashCode(capacityEntries) + parameters.hashCode()) + Arrays.hashCode(futureReferences);
    }

    @Override
    public String toString() {
        return "PolicyOptions[capacityEntries=" + capacityEntries + ", parameters=" + parameters
                + ", futureReferences=" + (futureReferences == null ? "none" : futureReferences.length + " references")
                + "]";
    }
}
