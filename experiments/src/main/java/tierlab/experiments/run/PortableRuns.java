package tierlab.experiments.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tierlab.model.request.RequestOutcome;
import tierlab.model.store.LookupResult.HitClass;
import tierlab.metrics.PassMetrics;
import tierlab.metrics.Sample;

/**
 * Sweep points and their results in a form that travels between JVMs (Java serialization of plain
 * values), for executors that run points elsewhere ({@link SweepExecutorProvider}).
 *
 * <p>A point travels as its own complete experiment document: the file's tree with the cell's axis
 * values written in and the sweep removed, plus its seed. Where it lands, {@link PortablePoint#resolve}
 * resolves that document with the same code the loader used here, so it is the same
 * {@link RunConfig}; the resolved parameters are compared with the ones resolved here, and a
 * difference stops the run rather than give a row that came from another configuration. Input files
 * (Mooncake traces, device profile files) are renamed to the names under which the executor
 * distributes them once to every worker; {@link Plan#inputs} lists them.
 *
 * <p>The model's settings records are not {@link Serializable}, and making them so would tie
 * {@code model/} and {@code sim/} to one transport; the document form needs nothing of them.
 */
public final class PortableRuns {

    /**
     * The loader's strict JSON mapper, made once per JVM: a mapper introspects ExperimentFile's records
     * anew, which cost a worker more than a short run's own time when every point made its own.
     * A configured mapper is safe to share between threads.
     */
    private static final ObjectMapper POINT_MAPPER = ExperimentParsing.mapperFor(Path.of("point.json"));

    /** Parameters that name an input file by its path: where a point runs, they name its distributed copy. */
    private static final List<String> PATH_PARAMETERS = List.of("workload.trace", "device", "gpu.compute.profile");

    private PortableRuns() {
    }

    /**
     * Every point of a sweep in portable form, in grid order, and the input files they read.
     *
     * @param inputs by the name the points use for it, the file on this machine to distribute
     */
    public record Plan(List<PortablePoint> points, Map<String, Path> inputs) {}

    /**
     * One sweep point: everything a run needs.
     *
     * @param document           the point's experiment document (JSON): the file with the cell's values set
     * @param cell               the sweep axes' values of the cell (JSON object, axis order)
     * @param columns            the columns {@code results.csv} gives the point's axes (JSON object)
     * @param expectedParameters the point's resolved parameters here, less the input paths, as text
     */
    public record PortablePoint(int index, long seed, String document, String cell, String columns,
                                String expectedParameters) implements Serializable {

        /**
         * The point as a {@link RunPoint}, its input files named relative to {@code inputs} (the folder
         * the executor distributed them to).
         *
         * @throws IllegalStateException when the configuration resolved here is not the one resolved
         *                               where the sweep was loaded (another tierlab version on the worker)
         */
        public RunPoint resolve(Path inputs) {
            ObjectMapper json = POINT_MAPPER;
            try {
                ExperimentFile spec = json.treeToValue(json.readTree(document), ExperimentFile.class);
                RunConfig config = ExperimentLoader.resolve(spec, seed, inputs, fields(json, columns));
                String resolved = comparable(config.parameters());
                if (!resolved.equals(expectedParameters)) {
                    throw new IllegalStateException("run " + index + " resolved to other parameters on this worker than"
                            + " on the driver (is the worker's tierlab the driver's?): " + resolved + " vs " + expectedParameters);
                }
                return new RunPoint(index, Collections.unmodifiableMap(fields(json, cell)), seed, config);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("run " + index + ": its experiment document does not parse: " + e.getOriginalMessage(), e);
            }
        }
    }

    /**
     * What a run produced, as plain values. Together with the {@link RunPoint} it ran, which the
     * driver already has, it is the {@link RunResult} again, every double bit for bit.
     *
     * @param samples  eight longs per sample, in {@link Sample}'s component order
     * @param outcomes per pass of {@code outcomePasses}, {@value #OUTCOME_LONGS} longs per request outcome, in
     *                 {@link RequestOutcome}'s component order (the hit class by its ordinal, a flag as 0 or 1)
     * @param cause    the failure's kind and stack trace, as the run had them (null: it did not fail)
     */
    public record PortableResult(int index, List<String> passNames, List<double[]> passValues, List<String> runMetricNames,
                                 double[] runMetricValues, long[] samples, List<String> ttftPasses, List<long[]> ttftNs,
                                 String decisionHash, long decisionEvents, String failure, List<String> examples,
                                 long wallNs, List<String> outcomePasses, List<long[]> outcomes, RunFailure cause)
            implements Serializable {

        static final int OUTCOME_LONGS = 18;

        public static PortableResult of(RunResult result) {
            List<String> passNames = new ArrayList<>();
            List<double[]> passValues = new ArrayList<>();
            for (PassMetrics pass : result.passes()) {
                passNames.add(pass.pass());
                passValues.add(pass.values());
            }
            List<String> runNames = new ArrayList<>(result.runMetrics().keySet());
            double[] runValues = new double[runNames.size()];
            for (int i = 0; i < runValues.length; i++) {
                runValues[i] = result.runMetrics().get(runNames.get(i));
            }
            long[] samples = new long[result.samples().size() * 8];
            int at = 0;
            for (Sample sample : result.samples()) {
                samples[at++] = sample.atNs();
                samples[at++] = sample.l1UsedBytes();
                samples[at++] = sample.leasedBytes();
                samples[at++] = sample.storeQueueDepth();
                samples[at++] = sample.running();
                samples[at++] = sample.waiting();
                samples[at++] = sample.prefetching();
                samples[at++] = sample.inflightOps();
            }
            List<String> outcomePasses = new ArrayList<>();
            List<long[]> outcomes = new ArrayList<>();
            result.outcomesByPass().forEach((pass, list) -> {
                outcomePasses.add(pass);
                outcomes.add(encode(list));
            });
            return new PortableResult(result.point().index(), passNames, passValues, runNames, runValues, samples,
                    new ArrayList<>(result.ttftNsByPass().keySet()), new ArrayList<>(result.ttftNsByPass().values()),
                    result.decisionHash(), result.decisionEvents(), result.failure(), new ArrayList<>(result.examples()),
                    result.wallNs(), outcomePasses, outcomes, result.cause());
        }

        private static long[] encode(List<RequestOutcome> list) {
            long[] values = new long[list.size() * OUTCOME_LONGS];
            int at = 0;
            for (RequestOutcome o : list) {
                long[] one = {o.requestId(), o.arrivalNs(), o.admittedNs(), o.firstTokenNs(), o.finishNs(), o.promptTokens(),
                        o.outputTokens(), o.hitClass().ordinal(), o.hitTokens(), o.deferrals(), o.preemptions(),
                        o.prefetched() ? 1 : 0, o.gpuCachedTokens(), o.l1Tokens(), o.l2Tokens(), o.loadsWaited(),
                        o.prefetchTimeoutTokens(), o.failedReadTokens()};
                System.arraycopy(one, 0, values, at, OUTCOME_LONGS);
                at += OUTCOME_LONGS;
            }
            return values;
        }

        private static List<RequestOutcome> decode(long[] values) {
            List<RequestOutcome> list = new ArrayList<>(values.length / OUTCOME_LONGS);
            HitClass[] classes = HitClass.values();
            for (int at = 0; at < values.length; at += OUTCOME_LONGS) {
                list.add(new RequestOutcome(values[at], values[at + 1], values[at + 2], values[at + 3], values[at + 4],
                        values[at + 5], values[at + 6], classes[(int) values[at + 7]], values[at + 8], (int) values[at + 9],
                        (int) values[at + 10], values[at + 11] != 0, values[at + 12], values[at + 13], values[at + 14],
                        (int) values[at + 15], values[at + 16], values[at + 17]));
            }
            return List.copyOf(list);
        }

        /** The result again, for {@code point} (the driver's own copy of the point this ran). */
        public RunResult toResult(RunPoint point) {
            if (point.index() != index) {
                throw new IllegalArgumentException("result of run " + index + " given to run " + point.index());
            }
            List<PassMetrics> passes = new ArrayList<>();
            for (int i = 0; i < passNames.size(); i++) {
                passes.add(new PassMetrics(passNames.get(i), passValues.get(i)));
            }
            Map<String, Double> run = new LinkedHashMap<>();
            for (int i = 0; i < runMetricNames.size(); i++) {
                run.put(runMetricNames.get(i), runMetricValues[i]);
            }
            List<Sample> sampleList = new ArrayList<>(samples.length / 8);
            for (int at = 0; at < samples.length; at += 8) {
                sampleList.add(new Sample(samples[at], samples[at + 1], samples[at + 2], (int) samples[at + 3],
                        (int) samples[at + 4], (int) samples[at + 5], (int) samples[at + 6], (int) samples[at + 7]));
            }
            Map<String, long[]> ttft = new LinkedHashMap<>();
            for (int i = 0; i < ttftPasses.size(); i++) {
                ttft.put(ttftPasses.get(i), ttftNs.get(i));
            }
            Map<String, List<RequestOutcome>> outcomesByPass = new LinkedHashMap<>();
            for (int i = 0; i < outcomePasses.size(); i++) {
                outcomesByPass.put(outcomePasses.get(i), decode(outcomes.get(i)));
            }
            return new RunResult(point, List.copyOf(passes), Collections.unmodifiableMap(run), List.copyOf(sampleList),
                    Collections.unmodifiableMap(ttft), decisionHash, decisionEvents, failure, List.copyOf(examples), wallNs,
                    Collections.unmodifiableMap(outcomesByPass), cause);
        }
    }

    /** The points of a loaded simulation experiment, portable, and the input files they name. */
    public static Plan plan(ExperimentLoader.Experiment experiment) {
        Path file = experiment.file();
        ObjectMapper mapper = ExperimentParsing.mapperFor(file);
        ObjectMapper json = new ObjectMapper();
        ObjectNode root;
        try {
            root = (ObjectNode) mapper.readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read the experiment file again", e);
        }
        Path folder = file.toAbsolutePath().normalize().getParent();
        Map<Path, String> names = new LinkedHashMap<>();
        List<PortablePoint> points = new ArrayList<>();
        for (RunPoint point : experiment.points()) {
            ObjectNode copy = root.deepCopy();
            copy.remove("sweep");
            point.axisValues().forEach((axis, value) -> SweepGrid.set(file, copy, axis, value));
            ObjectNode columns = json.createObjectNode();
            for (String axis : experiment.axes()) {
                JsonNode value = point.axisValues().containsKey(axis) ? point.axisValues().get(axis) : SweepGrid.at(copy, axis);
                if (value != null) {
                    columns.set(axis, value);
                }
            }
            ObjectNode cell = json.createObjectNode();
            point.axisValues().forEach(cell::set);
            if (point.config().workload() instanceof WorkloadPlan.Mooncake mooncake) {
                ((ObjectNode) copy.get("workload")).put("trace", distributedName(names, mooncake.trace()));
            }
            JsonNode device = copy.get("device");
            if (device != null && device.isTextual() && isProfileFile(device.asText())) {
                copy.put("device", distributedName(names, folder.resolve(device.asText()).normalize()));
            }
            JsonNode compute = SweepGrid.at(copy, "gpu.compute.profile");
            if (compute != null && compute.isTextual()) {
                ((ObjectNode) copy.get("gpu").get("compute")).put("profile",
                        distributedName(names, folder.resolve(compute.asText()).normalize()));
            }
            points.add(new PortablePoint(point.index(), point.seed(), copy.toString(), cell.toString(), columns.toString(),
                    comparable(point.config().parameters())));
        }
        Map<String, Path> inputs = new LinkedHashMap<>();
        names.forEach((path, name) -> inputs.put(name.substring(2), path));
        return new Plan(List.copyOf(points), Collections.unmodifiableMap(inputs));
    }

    /** The loader's own test of a device name that is a profile file rather than a preset. */
    private static boolean isProfileFile(String name) {
        return name.contains("/") || name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json");
    }

    /**
     * {@code ./input0-mooncake_trace.jsonl}: unique per file (two traces may share a file name in two
     * folders), keeping the file name (readers tell formats by extension) and a slash (so the loader
     * reads a device name as a file, not a preset).
     */
    private static String distributedName(Map<Path, String> names, Path file) {
        return names.computeIfAbsent(file, path -> "./input" + names.size() + "-" + path.getFileName());
    }

    private static String comparable(Map<String, Object> parameters) {
        Map<String, Object> kept = new LinkedHashMap<>(parameters);
        PATH_PARAMETERS.forEach(kept::remove);
        return kept.toString();
    }

    private static Map<String, JsonNode> fields(ObjectMapper json, String object) throws JsonProcessingException {
        Map<String, JsonNode> fields = new LinkedHashMap<>();
        json.readTree(object).properties().forEach(entry -> fields.put(entry.getKey(), entry.getValue()));
        return fields;
    }
}
