package tierlab.model.policy;

/**
 * What a policy needs from its caller beyond the contract of {@link ReplacementPolicy}. Callers ask
 * the registry for a capability instead of checking policy names, so a new policy with the same
 * need is handled everywhere by declaring it.
 */
public enum PolicyCapability {
    /**
     * The policy reads the future reference stream ({@link PolicyOptions#futureReferences()}), so it
     * is an offline bound: it runs in replays that know the trace, never in a running store.
     */
    NEEDS_FUTURE_REFERENCES
}
