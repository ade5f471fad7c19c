package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

final class PolicyChoiceTest {

    @Test
    void aPlainNameIsThePolicyAtItsDefaults() {
        PolicyChoice choice = PolicyChoice.parse("sieve");
        assertEquals("sieve", choice.label());
        assertEquals("sieve", choice.name());
        assertEquals(PolicyParameters.defaults(), choice.parameters());
        assertEquals(PolicyChoice.of("sieve"), choice);
    }

    @Test
    void knobsAreTypedCheckedAndLabelledInDeclarationOrder() {
        PolicyChoice choice = PolicyChoice.parse("s3-fifo:moveToMainThreshold=2:smallRatio=0.2");
        assertEquals("s3-fifo:smallRatio=0.2:moveToMainThreshold=2", choice.label());
        assertEquals(Map.of("smallRatio", 0.2, "moveToMainThreshold", 2), choice.parameters().nonDefault());
        S3FifoPolicy policy = (S3FifoPolicy) Policies.create(choice.name(), choice.options(100));
        assertEquals(20, policy.smallTargetSize());
        assertEquals("w-tinylfu:doorkeeper=true", PolicyChoice.parse("w-tinylfu:doorkeeper=true").label());
        // A knob at its default value is still named in the label: it is what the user asked for.
        assertEquals("2q:kin=0.25", PolicyChoice.parse("2q:kin=0.25").label());
        assertEquals(PolicyParameters.defaults(), PolicyChoice.parse("2q:kin=0.25").parameters());
    }

    @Test
    void badChoicesGiveOneLineNamingThePolicyAndTheKnob() {
        assertEquals("unknown policy 'mru' (known: lru, prefix-lru, bip, arc, s3-fifo, sieve, belady, fifo, lfu, slru,"
                + " 2q, w-tinylfu, clock, lfuda, gdsf, lirs, lecar)", message("mru:kin=1"));
        assertEquals("policy 'bip' has no knob 'kin' (its knobs: mruInterval)", message("bip:kin=1"));
        assertEquals("policy 'bip': mruInterval must be a whole number, was '2.5'", message("bip:mruInterval=2.5"));
        assertEquals("policy 'bip': mruInterval must be >= 1, was 0", message("bip:mruInterval=0"));
        assertEquals("policy 'w-tinylfu': doorkeeper must be true or false, was 'yes'", message("w-tinylfu:doorkeeper=yes"));
        assertEquals("policy '2q': 'kin' is not KNOB=VALUE (write NAME[:KNOB=VALUE[:KNOB=VALUE...]])", message("2q:kin"));
        assertEquals("policy '2q': kout must be a number written in decimal, like 0.25 or 1e-3, was ''", message("2q:kout="));
    }

    /** Java's number reader takes a float suffix, hex and negative zero; a knob is a plain decimal within its range. */
    @Test
    void numberKnobsTakePlainDecimalsOnly() {
        assertEquals("policy 'lfu': agingFactor must be between 0.0 and 1000000.0, was -0.0", message("lfu:agingFactor=-0.0"));
        assertEquals("policy 's3-fifo': ghostRatio must be a number written in decimal, like 0.25 or 1e-3, was '0.9f'",
                message("s3-fifo:ghostRatio=0.9f"));
        assertEquals("policy 's3-fifo': ghostRatio must be a number written in decimal, like 0.25 or 1e-3, was '0x1p-3'",
                message("s3-fifo:ghostRatio=0x1p-3"));
        assertEquals("policy 's3-fifo': ghostRatio must be a number written in decimal, like 0.25 or 1e-3, was 'NaN'",
                message("s3-fifo:ghostRatio=NaN"));
        assertEquals("policy 's3-fifo': ghostRatio must be a number written in decimal, like 0.25 or 1e-3, was '1d'",
                message("s3-fifo:ghostRatio=1d"));
        assertEquals(0.0, PolicyChoice.parse("lfu:agingFactor=0").parameters().get(LfuPolicy.AGING_FACTOR));
        assertEquals(0.125, PolicyChoice.parse("s3-fifo:ghostRatio=1.25e-1").parameters().get(S3FifoPolicy.GHOST_RATIO));
        assertEquals(0.5, PolicyChoice.parse("s3-fifo:ghostRatio=.5").parameters().get(S3FifoPolicy.GHOST_RATIO));
    }

    private static String message(String text) {
        return assertThrows(IllegalArgumentException.class, () -> PolicyChoice.parse(text)).getMessage();
    }
}
