package tierlab.workload;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.SplittableRandom;

/**
 * A distribution of token counts (prompt lengths, output lengths, new user tokens of a turn). In a
 * settings file it is an object with a {@code kind}: {@code {kind: fixed, tokens: 8192}} or
 * {@code {kind: uniform, minTokens: 1000, maxTokens: 4000}}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
    @JsonSubTypes.Type(value = LengthDistribution.Fixed.class, name = "fixed"),
    @JsonSubTypes.Type(value = LengthDistribution.Uniform.class, name = "uniform")})
public sealed interface LengthDistribution {

    /** One draw, in tokens; never below {@link #minTokens()} nor above {@link #maxTokens()}. */
    long sample(SplittableRandom random);

    long minTokens();

    long maxTokens();

    double meanTokens();

    static LengthDistribution fixed(long tokens) {
        return new Fixed(tokens);
    }

    static LengthDistribution uniform(long minTokens, long maxTokens) {
        return new Uniform(minTokens, maxTokens);
    }

    /** Always {@code tokens}. */
    record Fixed(long tokens) implements LengthDistribution {
        public Fixed {
            if (tokens <= 0) {
                throw new IllegalArgumentException("tokens must be > 0, was " + tokens);
            }
        }

        @Override
        public long sample(SplittableRandom random) {
            return tokens;
        }

        @Override
        public long minTokens() {
            return tokens;
        }

        @Override
        public long maxTokens() {
            return tokens;
        }

        @Override
        public double meanTokens() {
            return tokens;
        }
    }

    /** Every whole count from {@code minTokens} to {@code maxTokens} (both included) equally likely. */
    record Uniform(long minTokens, long maxTokens) implements LengthDistribution {
        public Uniform {
            if (minTokens <= 0) {
                throw new IllegalArgumentException("minTokens must be > 0, was " + minTokens);
            }
            if (maxTokens < minTokens) {
                throw new IllegalArgumentException("maxTokens must be >= minTokens (" + minTokens + "), was " + maxTokens);
            }
            if (maxTokens == Long.MAX_VALUE) {
                throw new IllegalArgumentException("maxTokens must be < " + Long.MAX_VALUE);
            }
        }

        @Override
        public long sample(SplittableRandom random) {
            return random.nextLong(minTokens, maxTokens + 1);
        }

        @Override
        public double meanTokens() {
            return (minTokens + (double) maxTokens) / 2;
        }
    }
}
