package tierlab.model.serving;

import java.util.Locale;

/**
 * The order in which an engine's admission pass walks its waiting queue (setting
 * {@code scheduler.waitingOrder}; read by the {@code sglang} engine only, docs/engines.md).
 *
 * <ul>
 *   <li>{@code lpm} [default]: longest prefix match first, the requests whose prompts the GPU prefix
 *       cache holds most of ahead of the rest, ties in arrival order (SGLang's default schedule policy
 *       with the radix cache, {@code --schedule-policy lpm}).</li>
 *   <li>{@code fcfs}: first come first served (SGLang's {@code fcfs}).</li>
 * </ul>
 */
public enum WaitingOrder {
    LPM("lpm"), FCFS("fcfs");

    private final String settingName;

    WaitingOrder(String settingName) {
        this.settingName = settingName;
    }

    public String settingName() {
        return settingName;
    }

    /** Reads {@code lpm} or {@code fcfs}; anything else is one message naming the setting and both forms. */
    public static WaitingOrder parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        for (WaitingOrder order : values()) {
            if (order.settingName.equals(value)) {
                return order;
            }
        }
        throw new IllegalArgumentException("scheduler.waitingOrder: '" + text + "' is not lpm or fcfs");
    }
}
