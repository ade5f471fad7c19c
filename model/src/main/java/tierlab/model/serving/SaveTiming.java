package tierlab.model.serving;

import java.util.Locale;

/**
 * When an engine step's saves must be done for the step to end (setting {@code scheduler.saveTiming};
 * read by the {@code vllm} and {@code vllm-v1} engines, docs/engines.md "Save timing").
 *
 * <ul>
 *   <li>{@code after-step} [default]: the step ends when its compute ends; the save of a request's
 *       computed blocks is queued then and staged by the save pipeline while the next steps run.</li>
 *   <li>{@code in-step}: as vLLM's KV-connector interface does it (vLLM v1,
 *       {@code vllm/distributed/kv_transfer/kv_connector/v1/base.py}, {@code KVConnectorBase_V1.save_kv_layer}
 *       and {@code wait_for_save}): the saves are issued inside the forward pass and the step does not end,
 *       so no token of it is emitted and no next step starts, until every staging copy GPU→L1 of the
 *       blocks it computed has landed. The L2 write stays asynchronous.</li>
 * </ul>
 */
public enum SaveTiming {
    AFTER_STEP("after-step"), IN_STEP("in-step");

    private final String settingName;

    SaveTiming(String settingName) {
        this.settingName = settingName;
    }

    public String settingName() {
        return settingName;
    }

    /** Reads {@code after-step} or {@code in-step}; anything else is one message naming the setting and both forms. */
    public static SaveTiming parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        for (SaveTiming timing : values()) {
            if (timing.settingName.equals(value)) {
                return timing;
            }
        }
        throw new IllegalArgumentException("scheduler.saveTiming: '" + text + "' is not after-step or in-step");
    }
}
