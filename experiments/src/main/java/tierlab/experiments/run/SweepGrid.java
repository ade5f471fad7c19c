package tierlab.experiments.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tierlab.experiments.CommandException;

/** The {@code sweep} section: its grids, their cells, and writing a cell's values into a copy of the file's tree. */
final class SweepGrid {

    private SweepGrid() {
    }

    /** The sweep as a list of grids: a map is one grid, a list of maps is several; none is one empty grid. */
    static List<Map<String, List<JsonNode>>> grids(Path file, JsonNode sweep) {
        if (sweep == null || sweep.isNull()) {
            return List.of(Map.of());
        }
        List<JsonNode> gridNodes = new ArrayList<>();
        if (sweep.isObject()) {
            gridNodes.add(sweep);
        } else if (sweep.isArray() && !sweep.isEmpty()) {
            sweep.forEach(gridNodes::add);
        } else {
            throw new CommandException(file + ": sweep: a mapping of axis → list of values, or a list of such mappings");
        }
        List<Map<String, List<JsonNode>>> grids = new ArrayList<>();
        for (int i = 0; i < gridNodes.size(); i++) {
            JsonNode node = gridNodes.get(i);
            String at = file + ": sweep" + (sweep.isArray() ? "[" + i + "]" : "");
            if (!node.isObject()) {
                throw new CommandException(at + ": a mapping of axis → list of values");
            }
            Map<String, List<JsonNode>> grid = new LinkedHashMap<>();
            var fields = node.fields();
            while (fields.hasNext()) {
                var field = fields.next();
                if (!field.getValue().isArray()) {
                    throw new CommandException(at + "." + field.getKey() + ": give a list of values, e.g. [" + field.getValue() + "]");
                }
                List<JsonNode> values = new ArrayList<>();
                field.getValue().forEach(values::add);
                grid.put(field.getKey(), values);
            }
            grids.add(grid);
        }
        return grids;
    }

    /**
     * How many runs the grids ask for before duplicates are merged: the sum over grids of the product
     * of their axis lengths, times the seeds. Counted without expanding anything, and saturated at
     * {@code Long.MAX_VALUE}, so a grid of 10^30 cells is refused as fast as one of 10^5.
     */
    static long runCount(List<Map<String, List<JsonNode>>> grids, int seeds) {
        long total = 0;
        for (Map<String, List<JsonNode>> grid : grids) {
            long cells = seeds;
            for (List<JsonNode> values : grid.values()) {
                cells = saturatedTimes(cells, values.size());
            }
            total = total > Long.MAX_VALUE - cells ? Long.MAX_VALUE : total + cells;
        }
        return total;
    }

    private static long saturatedTimes(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
    }

    /** Every combination of axis values, the first axis varying slowest. */
    static List<Map<String, JsonNode>> cells(List<String> axes, Map<String, List<JsonNode>> sweep) {
        List<Map<String, JsonNode>> cells = new ArrayList<>();
        cells.add(new LinkedHashMap<>());
        for (String axis : axes) {
            List<Map<String, JsonNode>> next = new ArrayList<>();
            for (Map<String, JsonNode> cell : cells) {
                for (JsonNode value : sweep.get(axis)) {
                    Map<String, JsonNode> extended = new LinkedHashMap<>(cell);
                    extended.put(axis, value);
                    next.add(extended);
                }
            }
            cells = next;
        }
        return cells.stream().map(java.util.Collections::unmodifiableMap).toList();
    }

    static String cellLabel(Map<String, JsonNode> cell) {
        StringBuilder label = new StringBuilder("{");
        cell.forEach((axis, value) -> {
            if (label.length() > 1) {
                label.append(", ");
            }
            label.append(axis).append('=').append(value.isTextual() ? value.asText() : value.toString());
        });
        return label.append('}').toString();
    }

    /** The node at a dotted path, or null. */
    static JsonNode at(JsonNode root, String path) {
        JsonNode node = root;
        for (String part : path.split("\\.")) {
            if (node == null || !node.isObject()) {
                return null;
            }
            node = node.get(part);
        }
        return node;
    }

    /** Sets a dotted path in the tree, creating sections on the way. */
    static void set(Path file, ObjectNode root, String path, JsonNode value) {
        String[] parts = path.split("\\.", -1);
        ObjectNode node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            if (parts[i].isEmpty()) {
                throw new CommandException(file + ": sweep." + path + ": an axis is a dotted field path such as store.policy");
            }
            JsonNode child = node.get(parts[i]);
            if (child == null || child.isNull()) {
                child = node.putObject(parts[i]);
            } else if (!child.isObject()) {
                throw new CommandException(file + ": sweep." + path + ": '" + String.join(".", List.of(parts).subList(0, i + 1))
                        + "' is not a section, so it has no field '" + parts[i + 1] + "'");
            }
            node = (ObjectNode) child;
        }
        if (parts[parts.length - 1].isEmpty()) {
            throw new CommandException(file + ": sweep." + path + ": an axis is a dotted field path such as store.policy");
        }
        node.set(parts[parts.length - 1], value);
    }
}
