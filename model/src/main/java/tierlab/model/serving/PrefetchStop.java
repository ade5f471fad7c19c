package tierlab.model.serving;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * When the engine stops waiting for a request's prefetch from the store (setting
 * {@code scheduler.prefetchStop}; docs/policies.md, "Prefetch stop policies"). The part of the
 * prompt whose KV has not arrived by then is recomputed.
 *
 * <ul>
 *   <li>{@code wait-complete} [default]: wait until every prefetched block has arrived (today's
 *       behaviour; SGLang's {@code wait_complete}).</li>
 *   <li>{@code best-effort}: the request runs at the first engine step after its prefetch began,
 *       with whatever arrived by then (SGLang's {@code best_effort}).</li>
 *   <li>{@code timeout:BASE_MS+PER_1K_MS}: wait at most {@code BASE_MS} plus {@code PER_1K_MS} for
 *       every 1,024 prompt tokens (SGLang's {@code timeout} policy with its
 *       {@code prefetch_timeout_base} and {@code prefetch_timeout_per_ki_token}).</li>
 * </ul>
 *
 * @param kind                the rule
 * @param baseNs              the timeout's fixed part (0 for the other kinds)
 * @param perKiloTokenNs      the timeout's part per 1,024 prompt tokens (0 for the other kinds)
 */
public record PrefetchStop(Kind kind, long baseNs, long perKiloTokenNs) {

    /** Tokens in the "per thousand" of the timeout: SGLang's "ki" tokens. */
    public static final long TOKENS_PER_KILO = 1024;

    /** The rules, by their setting names. */
    public enum Kind {
        WAIT_COMPLETE("wait-complete"), BEST_EFFORT("best-effort"), TIMEOUT("timeout");

        private final String settingName;

        Kind(String settingName) {
            this.settingName = settingName;
        }

        public String settingName() {
            return settingName;
        }
    }

    /** Today's behaviour: a prefetch is always waited for. */
    public static final PrefetchStop WAIT_COMPLETE = new PrefetchStop(Kind.WAIT_COMPLETE, 0, 0);
    public static final PrefetchStop BEST_EFFORT = new PrefetchStop(Kind.BEST_EFFORT, 0, 0);

    public PrefetchStop {
        if (kind == null) {
            throw new IllegalArgumentException("prefetchStop must be set");
        }
        if (baseNs < 0 || perKiloTokenNs < 0 || (kind != Kind.TIMEOUT && (baseNs != 0 || perKiloTokenNs != 0))) {
            throw new IllegalArgumentException("prefetchStop: a timeout's base and per-1k parts are ≥ 0 and only given to"
                    + " timeout, were " + baseNs + " ns and " + perKiloTokenNs + " ns");
        }
    }

    public static PrefetchStop timeout(long baseNs, long perKiloTokenNs) {
        return new PrefetchStop(Kind.TIMEOUT, baseNs, perKiloTokenNs);
    }

    /**
     * The virtual time at which a prefetch that began at {@code startNs} for a prompt of
     * {@code promptTokens} tokens stops being waited for: never for {@code wait-complete}
     * ({@link Long#MAX_VALUE}), {@code startNs} itself for {@code best-effort}, and
     * {@code startNs + base + perK × promptTokens / 1024} (rounded down) for a timeout.
     */
    public long deadlineNs(long startNs, long promptTokens) {
        return switch (kind) {
            case WAIT_COMPLETE -> Long.MAX_VALUE;
            case BEST_EFFORT -> startNs;
            case TIMEOUT -> {
                try {
                    long perTokensNs = Math.multiplyExact(perKiloTokenNs, Math.max(0, promptTokens)) / TOKENS_PER_KILO;
                    yield Math.addExact(Math.addExact(startNs, baseNs), perTokensNs);
                } catch (ArithmeticException overflow) {
                    // A deadline past the end of time is no deadline.
                    yield Long.MAX_VALUE;
                }
            }
        };
    }

    /** True when this rule never stops a prefetch early. */
    public boolean waitsForAll() {
        return kind == Kind.WAIT_COMPLETE;
    }

    /** The setting's text: {@code wait-complete}, {@code best-effort} or {@code timeout:B+P} in milliseconds. */
    public String settingText() {
        if (kind != Kind.TIMEOUT) {
            return kind.settingName;
        }
        return kind.settingName + ":" + millis(baseNs) + "+" + millis(perKiloTokenNs);
    }

    private static String millis(long ns) {
        return ns % 1_000_000 == 0 ? Long.toString(ns / 1_000_000)
                : BigDecimal.valueOf(ns, 6).stripTrailingZeros().toPlainString();
    }

    /**
     * Reads {@code wait-complete}, {@code best-effort} or {@code timeout:BASE_MS+PER_1K_MS} (milliseconds,
     * decimals allowed); anything else is refused with one message naming the setting and the accepted forms.
     */
    public static PrefetchStop parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (value.equals(Kind.WAIT_COMPLETE.settingName)) {
            return WAIT_COMPLETE;
        }
        if (value.equals(Kind.BEST_EFFORT.settingName)) {
            return BEST_EFFORT;
        }
        String prefix = Kind.TIMEOUT.settingName + ":";
        if (value.startsWith(prefix)) {
            String[] parts = value.substring(prefix.length()).split("\\+", -1);
            if (parts.length == 2) {
                try {
                    return timeout(nanos(parts[0]), nanos(parts[1]));
                } catch (NumberFormatException | ArithmeticException e) {
                    // Falls through to the one message below.
                }
            }
        }
        throw new IllegalArgumentException("prefetchStop: '" + text + "' is not wait-complete, best-effort or"
                + " timeout:BASE_MS+PER_1K_MS (e.g. timeout:50+10)");
    }

    private static long nanos(String millis) {
        BigDecimal ms = new BigDecimal(millis.trim());
        if (ms.signum() < 0) {
            throw new NumberFormatException("negative");
        }
        return ms.movePointRight(6).setScale(0, RoundingMode.HALF_UP).longValueExact();
    }
}
