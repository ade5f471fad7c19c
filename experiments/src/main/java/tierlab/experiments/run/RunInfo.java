package tierlab.experiments.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code run.json}: what is needed to tell whether two outputs came from the same run: the seeds,
 * the tierlab commit, hashes of the experiment file, of the resolved configuration of every run and
 * of every input trace, the decision-trace hash of every run, the JVM, and the wall time.
 *
 * @param configSha256 SHA-256 over every run's resolved parameters, in grid order: two files that
 *                     spell the same experiment differently hash the same
 */
public record RunInfo(String command, String gitCommit, String configSha256, Map<String, String> traceSha256,
                      String decisionTracesSha256, double wallSeconds, int threads, Instant startedAt) {

    public static RunInfo of(ExperimentLoader.Experiment experiment, List<RunResult> results, String command,
                             double wallSeconds, int threads, Instant startedAt) {
        StringBuilder config = new StringBuilder();
        StringBuilder decisions = new StringBuilder();
        Map<String, String> traces = new LinkedHashMap<>();
        for (RunPoint point : experiment.points()) {
            config.append(point.index()).append(point.config().parameters()).append('\n');
            if (point.config().workload() instanceof WorkloadPlan.Mooncake mooncake) {
                traces.computeIfAbsent(mooncake.trace().toString(), path -> fileSha256(mooncake.trace()));
            }
            if (point.config().workload() instanceof WorkloadPlan.Trace trace) {
                traces.computeIfAbsent(trace.trace().toString(), path -> fileSha256(trace.trace()));
            }
        }
        for (RunResult result : results) {
            decisions.append(result.point().index()).append(' ').append(result.decisionHash()).append('\n');
        }
        return new RunInfo(command, currentGitCommit(), ExperimentLoader.sha256(config.toString().getBytes(StandardCharsets.UTF_8)),
                traces, ExperimentLoader.sha256(decisions.toString().getBytes(StandardCharsets.UTF_8)), wallSeconds,
                threads, startedAt);
    }

    public ObjectNode json(ExperimentLoader.Experiment experiment, List<RunResult> results) {
        return json(experiment, results, Map.of());
    }

    /**
     * @param l1LockByRun by run index, whether a hybrid or live run's L1 arena was mlocked or why not
     *                    (RLIMIT_MEMLOCK, no CAP_IPC_LOCK); written as the run's {@code l1Lock}
     */
    public ObjectNode json(ExperimentLoader.Experiment experiment, List<RunResult> results, Map<Integer, String> l1LockByRun) {
        Map<Integer, RunFacts> facts = new LinkedHashMap<>();
        l1LockByRun.forEach((run, lock) -> facts.put(run, new RunFacts(null, lock, null, null)));
        return jsonWithFacts(experiment, results, facts);
    }

    /**
     * @param factsByRun by run index, what a hybrid or live run ran on ({@link RunFacts}: L1 pinned
     *                   or why not, storage backend, GPU copies), written into the run's entry
     */
    public ObjectNode jsonWithFacts(ExperimentLoader.Experiment experiment, List<RunResult> results,
                                    Map<Integer, RunFacts> factsByRun) {
        ObjectNode root = new ObjectMapper().createObjectNode();
        root.put("name", experiment.name());
        root.put("file", experiment.file().toString());
        root.put("fileSha256", experiment.fileSha256());
        root.put("configSha256", configSha256);
        root.put("command", command);
        root.put("gitCommit", gitCommit);
        BuildInfo.current().writeTo(root.putObject("tierlab"), gitCommit);
        root.put("mode", experiment.mode());
        ArrayNode seeds = root.putArray("seeds");
        experiment.points().stream().map(RunPoint::seed).distinct().forEach(seeds::add);
        ObjectNode traces = root.putObject("traceSha256");
        traceSha256.forEach(traces::put);
        root.put("decisionTracesSha256", decisionTracesSha256);
        ArrayNode runs = root.putArray("runs");
        for (RunResult result : results) {
            ObjectNode run = runs.addObject();
            run.put("run", result.point().index());
            run.put("point", result.point().label());
            run.put("seed", result.point().seed());
            run.put("decisionTraceHash", result.decisionHash());
            run.put("decisions", result.decisionEvents());
            run.put("wallSeconds", result.wallNs() / 1e9);
            RunFacts facts = factsByRun.get(result.point().index());
            if (facts != null) {
                facts.writeTo(run);
            }
            if (result.failed()) {
                run.put("failure", result.failure());
            }
        }
        ObjectNode jvm = root.putObject("jvm");
        jvm.put("version", System.getProperty("java.version"));
        jvm.put("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
        jvm.put("vendor", System.getProperty("java.vendor"));
        root.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("threads", threads);
        root.put("startedAt", startedAt.toString());
        root.put("wallSeconds", wallSeconds);
        return root;
    }

    static String fileSha256(Path file) {
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), MessageDigest.getInstance("SHA-256"))) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
            return HexFormat.of().formatHex(((DigestInputStream) in).getMessageDigest().digest());
        } catch (IOException e) {
            return "unreadable: " + e.getMessage();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /**
     * The commit tierlab was built from: baked into the distribution archive when it was built
     * ({@link BuildInfo}); else the checkout's, with "-dirty" when it has local changes; "unknown"
     * outside git.
     */
    static String currentGitCommit() {
        String baked = BuildInfo.current().gitCommit();
        if (baked != null) {
            return baked;
        }
        return checkoutCommit();
    }

    /** The commit of the checkout tierlab runs from, with "-dirty" when it has local changes; "unknown" outside git. */
    static String checkoutCommit() {
        String commit = git("rev-parse", "HEAD");
        if (commit == null || commit.isBlank()) {
            return "unknown";
        }
        String status = git("status", "--porcelain", "--untracked-files=no");
        return commit.strip() + (status != null && !status.isBlank() ? "-dirty" : "");
    }

    private static String git(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(false)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                return null;
            }
            return out;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
