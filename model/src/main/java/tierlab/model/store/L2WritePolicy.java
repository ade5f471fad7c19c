package tierlab.model.store;

import java.util.Locale;

/**
 * When a committed block's bytes are written to L2 (setting {@code store.l2WritePolicy};
 * docs/policies.md, "L2 write policies").
 *
 * <ul>
 *   <li>{@code write-through} [default]: at commit, every saved block (the reference system).</li>
 *   <li>{@code write-back}: only when the block leaves L1 by eviction; until then it is <em>dirty</em>
 *       (its only copy is in L1). A crash loses the dirty blocks: they are never in a snapshot.</li>
 *   <li>{@code write-after-hits:N}: once the block has been hit N times while in L1 (SGLang's
 *       {@code write_through_selective}); a block evicted from L1 before that is dropped, not
 *       written. {@code write-after-hits:0} is {@code write-through}.</li>
 * </ul>
 *
 * @param kind            the rule
 * @param hitsBeforeWrite N of {@code write-after-hits:N}; 0 for the other kinds
 */
public record L2WritePolicy(Kind kind, int hitsBeforeWrite) {

    /** The rules, by their setting names. */
    public enum Kind {
        WRITE_THROUGH("write-through"), WRITE_BACK("write-back"), WRITE_AFTER_HITS("write-after-hits");

        private final String settingName;

        Kind(String settingName) {
            this.settingName = settingName;
        }

        public String settingName() {
            return settingName;
        }
    }

    /** Today's behaviour: every saved block is written at commit. */
    public static final L2WritePolicy WRITE_THROUGH = new L2WritePolicy(Kind.WRITE_THROUGH, 0);
    public static final L2WritePolicy WRITE_BACK = new L2WritePolicy(Kind.WRITE_BACK, 0);
    /** The largest N accepted: a hit count beyond it would never be reached by a real trace's reuse. */
    public static final int MAX_HITS_BEFORE_WRITE = 1_000_000;

    public L2WritePolicy {
        if (kind == null) {
            throw new IllegalArgumentException("l2WritePolicy must be set");
        }
        if (kind == Kind.WRITE_AFTER_HITS ? hitsBeforeWrite < 0 || hitsBeforeWrite > MAX_HITS_BEFORE_WRITE
                : hitsBeforeWrite != 0) {
            throw new IllegalArgumentException("l2WritePolicy: hits before write must be within [0, "
                    + MAX_HITS_BEFORE_WRITE + "] and only given to write-after-hits, was " + hitsBeforeWrite);
        }
        if (kind == Kind.WRITE_AFTER_HITS && hitsBeforeWrite == 0) {
            // Zero hits before the write is the write at commit: one rule, one decision trace.
            kind = Kind.WRITE_THROUGH;
        }
    }

    public static L2WritePolicy writeAfterHits(int hits) {
        return new L2WritePolicy(Kind.WRITE_AFTER_HITS, hits);
    }

    /**
     * Reads {@code write-through}, {@code write-back} or {@code write-after-hits:N}; anything else is
     * refused with one message that names the setting and the accepted forms.
     */
    public static L2WritePolicy parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (value.equals(Kind.WRITE_THROUGH.settingName)) {
            return WRITE_THROUGH;
        }
        if (value.equals(Kind.WRITE_BACK.settingName)) {
            return WRITE_BACK;
        }
        String prefix = Kind.WRITE_AFTER_HITS.settingName + ":";
        String count = value.startsWith(prefix) ? value.substring(prefix.length()) : "";
        if (!count.isEmpty() && count.chars().allMatch(c -> c >= '0' && c <= '9')) {
            // A count of any length is a count: one beyond the limit is told the limit, not that it is no number.
            if (new java.math.BigInteger(count).compareTo(java.math.BigInteger.valueOf(MAX_HITS_BEFORE_WRITE)) > 0) {
                throw new IllegalArgumentException("l2WritePolicy: '" + text + "': N must be within [0, "
                        + String.format(Locale.ROOT, "%,d", MAX_HITS_BEFORE_WRITE) + "] hits, was " + count);
            }
            return writeAfterHits(Integer.parseInt(count));
        }
        throw new IllegalArgumentException("l2WritePolicy: '" + text
                + "' is not one of write-through, write-back, write-after-hits:N (N a whole number of hits)");
    }

    /** The setting's text, as {@link #parse} reads it. */
    public String label() {
        return kind == Kind.WRITE_AFTER_HITS ? kind.settingName + ":" + hitsBeforeWrite : kind.settingName;
    }

    @Override
    public String toString() {
        return label();
    }
}
