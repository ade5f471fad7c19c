package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

final class PoliciesTest {

    @Test
    void namesAreStableAndInTheDocumentedOrder() {
        assertEquals(List.of("lru", "prefix-lru", "bip", "arc", "s3-fifo", "sieve", "belady", "fifo", "lfu", "slru", "2q",
                "w-tinylfu", "clock", "lfuda", "gdsf", "lirs", "lecar"), Policies.names());
        assertEquals(List.of("lru", "prefix-lru", "bip", "arc", "s3-fifo", "sieve", "fifo", "lfu", "slru", "2q",
                "w-tinylfu", "clock", "lfuda", "gdsf", "lirs", "lecar"), Policies.online());
        assertThrows(UnsupportedOperationException.class, () -> Policies.names().add("mine"));
    }

    @Test
    void everyNameCreatesAFreshPolicyOfThatName() {
        PolicyOptions options = PolicyOptions.defaults(16).withFutureReferences(new long[] {1, 2, 3});
        for (String name : Policies.names()) {
            ReplacementPolicy policy = Policies.create(name, options);
            assertEquals(name, policy.name());
            assertEquals(0, policy.size());
            assertTrue(Policies.create(name, options) != policy, name + " must not be shared between callers");
        }
    }

    @Test
    void optionsReachThePolicies() {
        BipPolicy bip = (BipPolicy) Policies.create("bip", PolicyOptions.defaults(8).with("mruInterval", 5));
        assertEquals(5, bip.mruInterval());
        S3FifoPolicy s3fifo = (S3FifoPolicy) Policies.create("s3-fifo", PolicyOptions.defaults(200));
        assertEquals(20, s3fifo.smallTargetSize());
        assertEquals(32, PolicyOptions.defaults(8).get(BipPolicy.MRU_INTERVAL));
        assertEquals(32, ((BipPolicy) Policies.create("bip", PolicyOptions.defaults(8))).mruInterval());
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> Policies.create("foo", PolicyOptions.defaults(8)));
        assertEquals("policy: unknown policy 'foo' (known: lru, prefix-lru, bip, arc, s3-fifo, sieve, belady, fifo, lfu, slru, 2q, w-tinylfu, clock, lfuda, gdsf, lirs, lecar)",
                error.getMessage());
    }

    @Test
    void missingNameOrOptionsAreNamed() {
        IllegalArgumentException noName = assertThrows(IllegalArgumentException.class,
                () -> Policies.create(null, PolicyOptions.defaults(8)));
        assertTrue(noName.getMessage().startsWith("policy: name is missing"), noName.getMessage());
        IllegalArgumentException noOptions = assertThrows(IllegalArgumentException.class,
                () -> Policies.create("lru", null));
        assertEquals("policy 'lru': options are missing", noOptions.getMessage());
    }

    @Test
    void beladyWithoutTheFutureTraceIsRejected() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> Policies.create("belady", PolicyOptions.defaults(8)));
        assertEquals("policy 'belady' needs futureReferences (the future trace)", error.getMessage());
    }

    @Test
    void badOptionsNameTheSetting() {
        IllegalArgumentException interval = assertThrows(IllegalArgumentException.class,
                () -> PolicyOptions.defaults(8).with("mruInterval", 0));
        assertEquals("mruInterval must be >= 1, was 0", interval.getMessage());
        IllegalArgumentException capacity = assertThrows(IllegalArgumentException.class,
                () -> PolicyOptions.defaults(0));
        assertEquals("capacityEntries must be >= 1, was 0", capacity.getMessage());
    }

    @Test
    void capabilitiesReplaceNameChecks() {
        for (PolicyKind kind : Policies.kinds()) {
            boolean needsFuture = kind.has(PolicyCapability.NEEDS_FUTURE_REFERENCES);
            assertEquals(!needsFuture, Policies.online().contains(kind.name()), kind.name());
            if (needsFuture) {
                // A policy that declares the need refuses to start without the stream.
                assertThrows(IllegalArgumentException.class, () -> Policies.create(kind.name(), PolicyOptions.defaults(8)));
            } else {
                assertEquals(kind.name(), Policies.create(kind.name(), PolicyOptions.defaults(8)).name());
            }
        }
        assertTrue(Policies.has("belady", PolicyCapability.NEEDS_FUTURE_REFERENCES));
        assertTrue(!Policies.has("no-such-policy", PolicyCapability.NEEDS_FUTURE_REFERENCES));
    }

    @Test
    void parametersAreDeclaredOnceWithTheirDefaultsAndDocs() {
        assertEquals(List.of("mruInterval", "smallRatio", "ghostRatio", "moveToMainThreshold", "agingFactor",
                "protectedRatio", "kin", "kout", "windowRatio", "doorkeeper", "bits", "hirRatio", "stackRatio", "learningRate", "seed"),
                Policies.parameters().stream().map(PolicyParameter::name).toList());
        PolicyParameter<?> interval = Policies.parameters().getFirst();
        assertEquals(32, interval.defaultValue());
        assertEquals("a whole number", interval.typeName());
        assertTrue(!interval.doc().isBlank());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> PolicyParameters.of(java.util.Map.of("mruIntervall", 4)));
        assertEquals("policy parameter 'mruIntervall' is unknown (known: mruInterval, smallRatio, ghostRatio,"
                + " moveToMainThreshold, agingFactor, protectedRatio, kin, kout, windowRatio, doorkeeper, bits, hirRatio, stackRatio, learningRate, seed)",
                unknown.getMessage());
        IllegalArgumentException wrongType = assertThrows(IllegalArgumentException.class,
                () -> PolicyParameters.of(java.util.Map.of("mruInterval", "four")));
        assertEquals("mruInterval must be a whole number, was four", wrongType.getMessage());
        // A whole number that arrives as a long (as a parser hands it over) is taken as the int it is.
        assertEquals(4, PolicyParameters.of(java.util.Map.of("mruInterval", 4L)).get(BipPolicy.MRU_INTERVAL));
    }

    @Test
    void optionsCompareByContent() {
        PolicyOptions first = PolicyOptions.defaults(8).withFutureReferences(new long[] {1, 2});
        PolicyOptions second = PolicyOptions.defaults(8).withFutureReferences(new long[] {1, 2});
        assertEquals(first, second);
        assertEquals(first.hashCode(), second.hashCode());
        assertTrue(!first.equals(PolicyOptions.defaults(8).withFutureReferences(new long[] {2, 1})));
        assertEquals("PolicyOptions[capacityEntries=8, parameters={}, futureReferences=2 references]",
                first.toString());
        // A knob set to its default is the same options as one left unset.
        assertEquals(PolicyOptions.defaults(8), PolicyOptions.defaults(8).with("mruInterval", 32));
        assertEquals("PolicyOptions[capacityEntries=8, parameters={mruInterval=4}, futureReferences=none]",
                PolicyOptions.defaults(8).with("mruInterval", 4).toString());
    }
}
