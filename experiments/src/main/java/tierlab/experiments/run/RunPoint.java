package tierlab.experiments.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One cell of the sweep grid at one seed.
 *
 * @param index      position in the grid (runs are reported in this order, whatever order they ran in)
 * @param axisValues the sweep axes' values of this cell, in the file's axis order
 */
public record RunPoint(int index, Map<String, JsonNode> axisValues, long seed, RunConfig config) {

    /** {@code store.policy=lru, store.l1CapacityGiB=64} — how messages and progress name the point. */
    public String label() {
        StringBuilder label = new StringBuilder();
        axisValues.forEach((axis, value) -> {
            if (!label.isEmpty()) {
                label.append(", ");
            }
            label.append(axis).append('=').append(value.isTextual() ? value.asText() : value.toString());
        });
        if (!label.isEmpty()) {
            label.append(", ");
        }
        return label.append("seed=").append(seed).toString();
    }
}
