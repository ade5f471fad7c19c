package tierlab.experiments.run;

import static tierlab.experiments.run.Fields.GIB;
import static tierlab.experiments.run.Fields.or;
import static tierlab.experiments.run.Fields.pageAligned;
import static tierlab.experiments.run.Fields.positive;
import static tierlab.experiments.run.Fields.withField;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import tierlab.experiments.CommandException;
import tierlab.experiments.run.ExperimentFile.StoreSection;
import tierlab.model.KnownBug;
import tierlab.model.Registry;
import tierlab.model.geometry.Geometry;
import tierlab.model.policy.Policies;
import tierlab.model.policy.PolicyKind;
import tierlab.model.policy.PolicyParameter;
import tierlab.model.policy.PolicyParameters;
import tierlab.model.store.L2Admission;
import tierlab.model.store.L2WritePolicy;
import tierlab.model.store.StoreSettings;

/**
 * The {@code store} section: the store's knobs, the policy by its registry entry and the policy
 * knobs by their declarations, so a policy's new knob is a file field and a results column without
 * a change here.
 */
final class StoreSections {

    static final Registry<String> BASELINES = Registry.<String>of("baseline")
            .add(RunConfig.TIERED, RunConfig.TIERED)
            .add(RunConfig.NO_OFFLOAD, RunConfig.NO_OFFLOAD)
            .add(RunConfig.HOST_MEMORY, RunConfig.HOST_MEMORY)
            .build();

    private StoreSections() {
    }

    /**
     * Refuses a store field that is neither a declared one nor a policy knob, with the message
     * Jackson gives other sections' unknown fields (the line where the text is known).
     */
    static void checkKnobNames(Path file, String text, String where, ExperimentFile spec) {
        if (spec == null || spec.store() == null) {
            return;
        }
        for (String name : spec.store().policyKnobs().keySet()) {
            if (knob(name) == null) {
                StringBuilder message = new StringBuilder(file.toString());
                int line = ExperimentParsing.keyLine(text, name, -1);
                if (where != null) {
                    message.append(": ").append(where);
                } else if (line > 0) {
                    message.append(": line ").append(line);
                }
                message.append(": unknown field 'store.").append(name).append("' (known in store: ")
                        .append(String.join(", ", knownFields())).append(")");
                throw new CommandException(message.toString());
            }
        }
    }

    /** Every field the store section accepts, sorted: its own components and every policy knob. */
    static List<String> knownFields() {
        Set<String> known = new TreeSet<>();
        for (var component : StoreSection.class.getRecordComponents()) {
            if (!component.getName().equals("policyKnobs")) {
                known.add(component.getName());
            }
        }
        Policies.parameters().forEach(parameter -> known.add(parameter.name()));
        return List.copyOf(known);
    }

    private static PolicyParameter<?> knob(String name) {
        return Policies.parameters().stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }

    static String baselineOf(ExperimentFile spec) {
        return spec.store() == null || spec.store().baseline() == null ? RunConfig.TIERED : spec.store().baseline();
    }

    /** Resolves the section for a run in {@code mode}, adding its columns to {@code parameters}. */
    static StoreSettings resolve(StoreSection section, RunMode mode, Geometry geometry, Map<String, Object> parameters) {
        StoreSection store = section == null ? StoreSection.empty() : section;
        String baseline = BASELINES.get("store.baseline", or(store.baseline(), RunConfig.TIERED));
        double l1GiB = positive("store.l1CapacityGiB", or(store.l1CapacityGiB(), 64.0));
        double l2GiB = positive("store.l2CapacityGiB", or(store.l2CapacityGiB(), 256.0));
        if (store.l1LimitGiB() != null) {
            positive("store.l1LimitGiB", store.l1LimitGiB());
        }
        if (store.l2LimitGiB() != null) {
            positive("store.l2LimitGiB", store.l2LimitGiB());
        }
        if (mode.realStorage()) {
            // Hybrid and live runs allocate a real L1 of this size: it must fit what the host has (or
            // the override). The L2 file's bound needs its folder, which the run command knows (HostLimits).
            String refused = HostLimits.l1Refusal(mode.name(), pageAligned(l1GiB),
                    HostLimits.l1(mode.name(), store.l1LimitGiB(), HostLimits.Host.current()));
            if (refused != null) {
                throw new IllegalArgumentException(refused);
            }
        }
        String policy = or(store.policy(), "lru");
        PolicyKind kind = Policies.names().contains(policy) ? Policies.kind(policy) : null;
        if (kind != null && !kind.online()) {
            throw new IllegalArgumentException("store.policy: " + policy + " needs the future reference stream, which a"
                    + " running store cannot know; it is the offline bound of missRatioCurve and 'tierlab replay'");
        }
        if (kind == null) {
            throw new IllegalArgumentException("store.policy: unknown policy '" + policy + "' (known: "
                    + String.join(", ", Policies.online()) + ")");
        }
        Set<KnownBug> bugs = knownBugs(store.knownBugs());
        long l1Bytes = pageAligned(l1GiB);
        long l2Bytes = Math.round(l2GiB * GIB);
        double writeBatchMiB = positive("store.writeBatchMaxMiB", or(store.writeBatchMaxMiB(), 64.0));
        if (l1Bytes < geometry.laneBytes()) {
            throw new IllegalArgumentException("store.l1CapacityGiB: must hold at least one block lane of "
                    + geometry.laneBytes() + " bytes, was " + l1GiB + " GiB");
        }
        PolicyParameters knobs = policyKnobs(store.policyKnobs());
        L2WritePolicy writePolicy = storeField(() -> L2WritePolicy.parse(or(store.l2WritePolicy(), "write-through")));
        L2Admission admission = storeField(() -> L2Admission.parse(or(store.l2Admission(), "none")));
        // The smallest valid store, only for its default knob values.
        StoreSettings defaults = StoreSettings.defaults(geometry, geometry.laneBytes(), geometry.blockBytes());
        StoreSettings settings = withField("store", () -> StoreSettings.builder(geometry, l1Bytes, l2Bytes)
                .policy(policy)
                .policyParameters(knobs)
                .promotionsAsHeadroom(or(store.promotionsAsHeadroom(), defaults.promotionsAsHeadroom()))
                .headroomFraction(or(store.headroomFraction(), defaults.headroomFraction()))
                .ringCount(or(store.ringCount(), defaults.ringCount()))
                .batchL2Reads(or(store.batchL2Reads(), defaults.batchL2Reads()))
                .writeBatchMaxBytes(pageAligned(writeBatchMiB / 1024.0))
                .stagingSlots(or(store.stagingSlots(), defaults.stagingSlots()))
                .contiguousStaging(or(store.contiguousStaging(), defaults.contiguousStaging()))
                .knownBugs(bugs)
                .l2WritePolicy(writePolicy)
                .l2Admission(admission)
                .build());
        parameters.put("store.baseline", baseline);
        parameters.put("store.l1CapacityGiB", l1GiB);
        parameters.put("store.l2CapacityGiB", l2GiB);
        parameters.put("store.policy", policy);
        // Every policy's knobs get a column (whichever policy runs), in registry order, right after the policy.
        for (PolicyParameter<?> parameter : Policies.parameters()) {
            parameters.put("store." + parameter.name(), settings.policyParameters().get(parameter));
        }
        parameters.put("store.promotionsAsHeadroom", settings.promotionsAsHeadroom());
        parameters.put("store.headroomFraction", settings.headroomFraction());
        parameters.put("store.ringCount", settings.ringCount());
        parameters.put("store.batchL2Reads", settings.batchL2Reads());
        parameters.put("store.writeBatchMaxMiB", writeBatchMiB);
        parameters.put("store.stagingSlots", settings.stagingSlots());
        parameters.put("store.contiguousStaging", settings.contiguousStaging());
        parameters.put("store.l2WritePolicy", settings.l2WritePolicy().label());
        parameters.put("store.l2Admission", settings.l2Admission().label());
        parameters.put("store.knownBugs", String.join("+", bugs.stream().map(KnownBug::raceId).toList()));
        return settings;
    }

    /** A field whose model type names itself in its message ({@code l2Admission: ...}): named as {@code store.l2Admission}. */
    private static <T> T storeField(Fields.Build<T> parse) {
        try {
            return parse.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("store." + e.getMessage(), e);
        }
    }

    /**
     * The persistent L2 file a run names ({@code store.l2File}, relative to the experiment file's
     * folder), with its column; null when the run uses a scratch file.
     */
    static Path l2File(StoreSection section, RunMode mode, Path folder, Map<String, Object> parameters) {
        if (section == null || section.l2File() == null) {
            return null;
        }
        if (!mode.persistentL2()) {
            List<String> keeping = RunMode.REGISTRY.names().stream()
                    .filter(name -> RunMode.REGISTRY.get("mode", name).persistentL2()).toList();
            throw new IllegalArgumentException("store.l2File: only a " + String.join(" or ", keeping)
                    + " run keeps a persistent L2 file (mode is " + mode.name() + ")");
        }
        parameters.put("store.l2File", section.l2File());
        return folder.resolve(section.l2File()).normalize();
    }

    /** The knobs as their declared types; a value of the wrong JSON type is named like any other field's. */
    private static PolicyParameters policyKnobs(Map<String, JsonNode> nodes) {
        Map<String, Object> values = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(nodes.keySet());
        for (String name : names) {
            PolicyParameter<?> parameter = knob(name);
            JsonNode node = nodes.get(name);
            Object value = node == null || node.isNull() ? null
                    : node.isIntegralNumber() && node.canConvertToLong() ? (Object) node.longValue()
                    : node.isFloatingPointNumber() && parameter.type() == Double.class ? (Object) node.doubleValue()
                    : node.isBoolean() ? (Object) node.booleanValue()
                    : node.isTextual() && parameter.type() == String.class ? node.textValue() : node;
            if (value == null || value instanceof JsonNode
                    || (parameter.type() != String.class && value instanceof String)) {
                throw new IllegalArgumentException("store." + name + ": wrong type: expected " + parameter.typeName()
                        + " (was " + node + ")");
            }
            values.put(name, value);
        }
        return withField("store", () -> PolicyParameters.of(values));
    }

    /** The catalogue's policy table (Markdown), generated from the registry so the docs cannot drift. */
    static String policyTable() {
        StringBuilder table = new StringBuilder("| policy | knobs [default] | what it does |\n|---|---|---|\n");
        for (PolicyKind kind : Policies.kinds()) {
            List<String> knobs = kind.parameters().stream()
                    .map(p -> "`" + p.name() + "` [" + p.defaultValue() + "]: " + p.doc()).toList();
            table.append("| `").append(kind.name()).append("` | ").append(knobs.isEmpty() ? "" : String.join("; ", knobs))
                    .append(" | ").append(kind.doc()).append(kind.online() ? "" : " (offline bound: replays only)")
                    .append(" |\n");
        }
        return table.toString();
    }

    static Set<KnownBug> knownBugs(List<String> names) {
        if (names == null || names.isEmpty()) {
            return Set.of();
        }
        Set<KnownBug> bugs = EnumSet.noneOf(KnownBug.class);
        for (String name : names) {
            KnownBug found = null;
            for (KnownBug bug : KnownBug.values()) {
                if (bug.raceId().equalsIgnoreCase(String.valueOf(name)) || bug.name().equalsIgnoreCase(String.valueOf(name))) {
                    found = bug;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("store.knownBugs: unknown race '" + name + "' (known: R1 ... R13)");
            }
            bugs.add(found);
        }
        return bugs;
    }
}
