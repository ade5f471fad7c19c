package tierlab.model.store;

import java.util.Locale;

/**
 * Whether a block is worth an L2 write (setting {@code store.l2Admission}; docs/policies.md, "The
 * L2 admission filter"). The filter counts sightings of each block key (a save of it and every L1
 * hit on it) and is asked whenever the write policy would write the block.
 *
 * <ul>
 *   <li>{@code none} [default]: every block the write policy writes is written.</li>
 *   <li>{@code frequency:N}: TinyLFU's count-min sketch (4-bit counters, halved every
 *       10 × L2 slots sightings) estimates the key's recent sightings; the write goes ahead only at
 *       N or more (N in 1..15).</li>
 *   <li>{@code doorkeeper}: the sketch behind TinyLFU's doorkeeper (a Bloom filter that takes each
 *       key's first sighting since the last reset): a block is written from its second sighting on
 *       ("disk only if seen twice").</li>
 * </ul>
 *
 * @param kind         the filter
 * @param minFrequency sightings a block needs before its write (1 for {@code none}, 2 for the doorkeeper)
 */
public record L2Admission(Kind kind, int minFrequency) {

    /** The filters, by their setting names. */
    public enum Kind {
        NONE("none"), FREQUENCY("frequency"), DOORKEEPER("doorkeeper");

        private final String settingName;

        Kind(String settingName) {
            this.settingName = settingName;
        }

        public String settingName() {
            return settingName;
        }
    }

    /** The sketch's counters saturate at 15 (4 bits), so no larger threshold can ever be met. */
    public static final int MAX_MIN_FREQUENCY = 15;
    /** Today's behaviour: no filter. */
    public static final L2Admission NONE = new L2Admission(Kind.NONE, 1);
    /** The doorkeeper's estimate of a key seen twice is 2: its doorkeeper bit plus one counted sighting. */
    public static final L2Admission DOORKEEPER = new L2Admission(Kind.DOORKEEPER, 2);

    public L2Admission {
        if (kind == null) {
            throw new IllegalArgumentException("l2Admission must be set");
        }
        int expected = switch (kind) {
            case NONE -> 1;
            case DOORKEEPER -> 2;
            case FREQUENCY -> minFrequency;
        };
        if (minFrequency != expected || minFrequency < 1 || minFrequency > MAX_MIN_FREQUENCY) {
            throw new IllegalArgumentException("l2Admission: frequency:N needs N within [1, " + MAX_MIN_FREQUENCY
                    + "] (4-bit sketch counters), was " + minFrequency);
        }
    }

    public static L2Admission frequency(int minFrequency) {
        return new L2Admission(Kind.FREQUENCY, minFrequency);
    }

    /** Reads {@code none}, {@code frequency:N} or {@code doorkeeper}; anything else is one message naming the setting. */
    public static L2Admission parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (value.equals(Kind.NONE.settingName)) {
            return NONE;
        }
        if (value.equals(Kind.DOORKEEPER.settingName)) {
            return DOORKEEPER;
        }
        String prefix = Kind.FREQUENCY.settingName + ":";
        if (value.startsWith(prefix)) {
            try {
                return frequency(Integer.parseInt(value.substring(prefix.length())));
            } catch (NumberFormatException e) {
                // Falls through to the one message below.
            }
        }
        throw new IllegalArgumentException("l2Admission: '" + text
                + "' is not one of none, frequency:N (N in 1.." + MAX_MIN_FREQUENCY + "), doorkeeper");
    }

    public boolean filters() {
        return kind != Kind.NONE;
    }

    public String label() {
        return kind == Kind.FREQUENCY ? kind.settingName + ":" + minFrequency : kind.settingName;
    }

    @Override
    public String toString() {
        return label();
    }
}
