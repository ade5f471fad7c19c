package tierlab.experiments.validate;

import static tierlab.experiments.validate.ValidationReport.fmt;
import static tierlab.experiments.validate.ValidationReport.pct;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import tierlab.sim.device.NvmeProfile;

/** {@code report.md}: the host, the calibration, each workload's table, decisions, and a paragraph on every metric off by more than 10%. */
final class ReportText {

    private ReportText() {
    }

    static String render(ValidationFile file, String command, String hostLine, String buildLine, String calibration, NvmeProfile nvme,
                         List<ValidationReport.WorkloadResult> results, List<String> chartFailures) {
        StringBuilder md = new StringBuilder();
        md.append("# Validation: ").append(file.name()).append("\n\n");
        if (!file.description().isBlank()) {
            md.append(file.description().strip()).append("\n\n");
        }
        md.append("Command: `").append(command).append("`\n\n");
        md.append("Host: ").append(hostLine).append("\n\n");
        // Its own line, after Host and Command, which tierlab accuracy reads: a report names the code that made it.
        md.append("Build: ").append(buildLine).append("\n\n");
        // The runs made, which --repeats may have set instead of the file's repeats.
        int runs = results.isEmpty() ? file.repeats() : results.getFirst().live().size();
        md.append("Each workload ran live ").append(runs).append(" time(s) (wall clock, io_uring on a real L2 file,")
                .append(" a real pinned L1, ").append(file.live().verify() ? "every load and staging copy checked against its payload"
                        : "loads not verified (live.verify is false)")
                .append("; the GPU's compute is a timed delay of the profile's step-time formula, not a model run on the GPU)")
                .append(" and in the simulator with the same seed (").append(file.seed()).append(")")
                .append(file.driveReplay() ? ", on the fitted profile with its NVMe ceilings set by a replay of the workload's own L2"
                        + " operations on the drive right before the live runs, and again on one set by the same replay right after them"
                        : ", on the fitted profile").append(". Relative error = (sim − live")
                .append(" median) / live median; spread = (max − min) / median of the live runs. **Bold**: more than 10% off.\n\n");
        headline(md, results);
        md.append("## Calibration\n\n```\n").append(calibration.strip()).append("\n```\n\n");
        results.forEach(result -> workloadSection(md, result, file.live().verify()));
        md.append("## Every metric more than 10% off, and what the runs show about it\n\n");
        boolean any = false;
        for (ValidationReport.WorkloadResult result : results) {
            for (Comparison.Row row : result.rows()) {
                if (Math.abs(row.relativeError()) > ValidationReport.DISCUSS_ABOVE) {
                    any = true;
                    md.append("- **").append(result.name()).append(' ').append(row.pass()).append('.').append(row.metric())
                            .append("** ").append(pct(row.relativeError())).append(": ").append(explain(row, result))
                            .append(fillNote(row, result))
                            .append(driveNote(row, result.rows(), nvme))
                            .append('\n');
                }
            }
        }
        if (!any) {
            md.append("None.\n");
        }
        md.append('\n');
        if (!chartFailures.isEmpty()) {
            md.append("## Charts that failed\n\n");
            chartFailures.forEach(line -> md.append("- ").append(line).append('\n'));
            md.append("\nEvery table above and `validation.csv` were written before any chart was drawn.\n");
        }
        return md.toString();
    }

    /**
     * The accuracy the run shows: elapsed time and TTFT p50 and p90 of every pass, first over the
     * held-out workloads (the headline: no term was fitted or tuned on them), then over the tuned ones.
     */
    static void headline(StringBuilder md, List<ValidationReport.WorkloadResult> results) {
        md.append("## Headline: held-out workloads\n\n");
        headlineTable(md, results.stream().filter(ValidationReport.WorkloadResult::heldOut).toList(),
                "No workload of this file is held out: no accuracy is claimed from it.");
        md.append("## Tuned workloads (terms were fitted or tuned on them: reported, not in the headline)\n\n");
        headlineTable(md, results.stream().filter(r -> !r.heldOut()).toList(), "None.");
    }

    private static void headlineTable(StringBuilder md, List<ValidationReport.WorkloadResult> results, String none) {
        if (results.isEmpty()) {
            md.append(none).append("\n\n");
            return;
        }
        java.util.Map<Verdict, Integer> counts = new java.util.EnumMap<>(Verdict.class);
        md.append("| workload | pass | metric | live median | sim (drive before) | error | sim (drive after) | error | verdict |\n");
        md.append("|---|---|---|---:|---:|---:|---:|---:|---|\n");
        for (ValidationReport.WorkloadResult result : results) {
            for (Comparison.Row row : result.rows()) {
                if (!Verdict.headline(row)) {
                    continue;
                }
                Verdict verdict = Verdict.of(row);
                counts.merge(verdict, 1, Integer::sum);
                md.append("| ").append(result.name()).append(" | ").append(row.pass()).append(" | ").append(row.metric()).append(" | ")
                        .append(fmt(row.liveMedian())).append(" | ").append(fmt(row.sim())).append(" | ").append(pct(row.relativeError()))
                        .append(" | ").append(fmt(row.simDriveAfter())).append(" | ").append(pct(row.relativeErrorDriveAfter()))
                        .append(" | ").append(verdict.label()).append(" |\n");
            }
        }
        md.append("\n");
        StringBuilder tally = new StringBuilder();
        for (Verdict verdict : Verdict.values()) {
            tally.append(tally.isEmpty() ? "" : ", ").append(counts.getOrDefault(verdict, 0)).append(' ').append(verdict.label());
        }
        md.append("Verdicts: ").append(tally).append(" (within: |error| ≤ 10% on the profile the drive replay measured before")
                .append(" the live runs; drive-moved: outside that, but within 10% on the profile measured after them, or the two")
                .append(" simulations on either side of the live median).\n\n");
    }

    /** One workload: its runs, the comparison table, the decisions and its charts. */
    private static void workloadSection(StringBuilder md, ValidationReport.WorkloadResult result, boolean verified) {
        md.append("## ").append(result.name()).append(" (").append(result.role()).append(")\n\n");
        if (result.drive() != null) {
            md.append("- drive replay of the simulated run's L2 operations: ").append(result.drive().describe()).append('\n');
        } else if (result.driveFailure() != null) {
            md.append("- **").append(result.driveFailure()).append("**: simulated on the host calibration's profile\n");
        }
        for (Observation live : result.live()) {
            md.append("- live run ").append(live.repeat() + 1).append(": ").append(fmt(live.wallNs() / 1e9)).append(" s, ")
                    .append(live.backend()).append("; GPU copies ").append(live.gpuCopies()).append("; payload checks ")
                    .append(String.format(Locale.ROOT, "%,d", live.realMatches())).append(" matched, ").append(live.realMismatches())
                    .append(" mismatched; ").append(String.format(Locale.ROOT, "%,d", live.loadedLanes())).append(" lanes loaded")
                    .append(live.failure() == null ? "" : ", **failed: " + live.failure() + "**").append('\n');
        }
        md.append("- simulation: ").append(String.format(Locale.ROOT, "%.2f", result.sim().wallNs() / 1e9)).append(" s of wall time")
                .append(result.sim().failure() == null ? "" : ", **failed: " + result.sim().failure() + "**").append('\n');
        if (result.live().stream().anyMatch(live -> live.gpuCopies().startsWith("cuda"))) {
            md.append(cudaPayloadNote(verified)).append("\n\n");
        } else {
            md.append("- not in the model (live-mode emulation, no GPU): the D2H stream writes each computed block's payload into"
                    + " L1 when it stages it, measured at ").append(String.format(Locale.ROOT, "%,.0f", result.computeFillNsPerMiB()))
                    .append(" ns/MiB:");
            for (var pass : result.sim().passes()) {
                md.append(' ').append(pass.pass()).append(' ').append(String.format(Locale.ROOT, "%.2f s", result.fillSeconds(pass.pass())));
            }
            md.append("\n\n");
        }
        md.append("| pass | metric | live median | live min – max | spread | sim | error | sim, drive after | error | verdict |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Comparison.Row row : result.rows()) {
            boolean off = Math.abs(row.relativeError()) > ValidationReport.DISCUSS_ABOVE;
            String error = pct(row.relativeError());
            md.append("| ").append(row.pass()).append(" | ").append(row.metric()).append(" (").append(row.unit()).append(") | ")
                    .append(fmt(row.liveMedian())).append(" | ")
                    .append(Double.isNaN(row.liveMin()) ? "–" : fmt(row.liveMin()) + " – " + fmt(row.liveMax())).append(" | ")
                    .append(pct(row.liveSpread()).replace("+", "")).append(" | ").append(fmt(row.sim())).append(" | ")
                    .append(off ? "**" + error + "**" : error).append(" | ").append(fmt(row.simDriveAfter())).append(" | ")
                    .append(pct(row.relativeErrorDriveAfter())).append(" | ").append(Verdict.of(row).label()).append(" |\n");
        }
        Comparison.Decisions d = result.decisions();
        md.append("\nDecisions (each request's lookup: hit class, first block, blocks hit): ").append(d.identical()).append(" of ")
                .append(d.requests()).append(" identical to the first live run's, in ")
                .append(d.sameOrder() ? "the same order" : "a different order").append("; ").append(d.liveRepeatsAgreeing())
                .append(" of ").append(result.live().size()).append(" live runs identical to the simulation; lookups made: sim ")
                .append(d.simLookupCalls()).append(", live ").append(d.liveLookupCalls()).append(".");
        md.append(d.firstDivergence() == null ? " No divergence in the lookups." : " First divergence: " + d.firstDivergence() + ".");
        md.append("\n\nEvery decision kind, counted (`decision-kinds.csv`):\n\n| kind | sim | live median | live min – max | error |\n")
                .append("|---|---:|---:|---:|---:|\n");
        for (Comparison.KindCount count : Comparison.kindCounts(result.live(), result.sim())) {
            md.append("| ").append(count.kind()).append(" | ").append(count.sim()).append(" | ").append(fmt(count.liveMedian()))
                    .append(" | ").append(fmt(count.liveMin())).append(" – ").append(fmt(count.liveMax())).append(" | ")
                    .append(pct(count.relativeError())).append(" |\n");
        }
        md.append('\n');
        md.append("Charts: `ttft-scatter-").append(result.name()).append(".png`, `ttft-cdf-").append(result.name())
                .append(".png`, `l2-throughput-").append(result.name()).append(".png`.\n\n");
    }

    /**
     * What the CUDA live runs did with computed blocks' payloads: with {@code live.verify} the compute
     * stream writes each one into device memory (so loads can be checked), without it nothing is written.
     */
    static String cudaPayloadNote(boolean verified) {
        return verified ? "- the live runs copied through CUDA: with verification, the compute stream writes each computed"
                + " block's payload into device memory within the step's modelled time (a live-mode check, not a model term)"
                : "- the live runs copied through CUDA without verification (live.verify is false): no payload is written"
                + " into device memory, so a compute step takes only its modelled time";
    }

    /**
     * What the runs show about a metric that is off: the live runs' own spread, what the simulation
     * on the after-replay profile gives, the lookups and decision kinds that differ, and the L2
     * work of the same pass that differs. Every clause is a figure of this run, none is chosen by the
     * error's sign.
     */
    static String explain(Comparison.Row row, ValidationReport.WorkloadResult result) {
        StringBuilder text = new StringBuilder();
        text.append(String.format(Locale.ROOT, "sim %s against a live median of %s", fmt(row.sim()), fmt(row.liveMedian())));
        if (!Double.isNaN(row.liveMin())) {
            text.append(String.format(Locale.ROOT, " (live %s – %s, spread %s; the simulation is %s that range)", fmt(row.liveMin()),
                    fmt(row.liveMax()), pct(row.liveSpread()).replace("+", ""), row.withinLiveRange() ? "inside" : "outside"));
        }
        text.append('.');
        if (Double.isFinite(row.relativeErrorDriveAfter())) {
            text.append(String.format(Locale.ROOT, " On the profile the drive replay measured after the live runs: %s (%s).",
                    fmt(row.simDriveAfter()), pct(row.relativeErrorDriveAfter())));
        }
        Comparison.Decisions d = result.decisions();
        text.append(String.format(Locale.ROOT, " Lookups: %d of %d identical to the first live run's.", d.identical(), d.requests()));
        if (!d.kindsThatDiffer().isEmpty()) {
            text.append(" Decision kinds counted differently (sim/first live run): ").append(d.kindsThatDiffer()).append('.');
        }
        String work = differingWork(row, result.rows());
        if (!work.isEmpty()) {
            text.append(" L2 work of this pass that differs: ").append(work).append('.');
        }
        return text.toString();
    }

    /** The pass's L2 and L1 counters whose simulation differs from the live median by more than 1%, with both figures. */
    private static String differingWork(Comparison.Row row, List<Comparison.Row> rows) {
        if (row.pass().equals("all")) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        for (Comparison.Row other : rows) {
            boolean work = other.metric().startsWith("l2") || other.metric().equals("l1HitRatio") || other.metric().equals("ioUringEnters");
            if (work && other.pass().equals(row.pass()) && !other.metric().equals(row.metric())
                    && Math.abs(other.relativeError()) > 0.01) {
                text.append(text.isEmpty() ? "" : "; ").append(other.metric()).append(" sim ").append(fmt(other.sim())).append(" / live ")
                        .append(fmt(other.liveMedian())).append(" (").append(pct(other.relativeError())).append(')');
            }
        }
        return text.toString();
    }

    /**
     * For an elapsed time the simulation overestimates: whether live moved the pass's L2 bytes faster,
     * over the whole pass, than the ceiling the calibration measured for them. Bytes over the pass's
     * live median time is a lower bound on the drive's rate while it worked, so a bound above the
     * ceiling proves the drive ran faster during the live runs than when it was measured.
     */
    static String driveNote(Comparison.Row row, List<Comparison.Row> rows, NvmeProfile nvme) {
        if (nvme == null || !row.metric().equals("elapsedS") || row.relativeError() <= 0 || row.liveMedian() <= 0) {
            return "";
        }
        StringBuilder note = new StringBuilder();
        double written = liveMedian(rows, row.pass(), "l2WriteBytes");
        double writeCeiling = nvme.maxFreshWriteBytesPerSecond() > 0 ? nvme.maxFreshWriteBytesPerSecond() : nvme.maxWriteBytesPerSecond();
        String writeName = nvme.maxFreshWriteBytesPerSecond() > 0 ? "first-write" : "write";
        appendOutran(note, "writes", written, row.liveMedian(), writeCeiling, writeName);
        appendOutran(note, "reads", liveMedian(rows, row.pass(), "l2ReadBytes"), row.liveMedian(), nvme.maxReadBytesPerSecond(), "read");
        return note.toString();
    }

    private static void appendOutran(StringBuilder note, String what, double bytes, double seconds, double ceiling, String ceilingName) {
        double bound = bytes / seconds;
        if (bytes <= 0 || ceiling <= 0 || bound <= ceiling) {
            return;
        }
        note.append(String.format(Locale.ROOT, " Live moved this pass's %.2f GB of %s in %.2f s, at least %.2f GB/s over the whole"
                + " pass, above the %s ceiling the calibration measured (%.2f GB/s): the drive ran faster during the live runs"
                + " than when it was measured, which no model held to that measurement can follow (a drive that drifts, not a"
                + " missing term).", bytes / 1e9, what, seconds, bound / 1e9, ceilingName, ceiling / 1e9));
    }

    private static double liveMedian(List<Comparison.Row> rows, String pass, String metric) {
        return rows.stream().filter(r -> r.pass().equals(pass) && r.metric().equals(metric)).mapToDouble(Comparison.Row::liveMedian)
                .findFirst().orElse(0);
    }

    /** For a time metric that live needs longer for: how much of the pass the unmodelled payload writes take. */
    static String fillNote(Comparison.Row row, ValidationReport.WorkloadResult result) {
        if (!row.metric().equals("elapsedS") || row.relativeError() >= 0 || row.liveMedian() <= 0) {
            return "";
        }
        double fill = result.fillSeconds(row.pass());
        if (fill <= 0) {
            return "";
        }
        return String.format(Locale.ROOT, " In this pass the payload writes alone took about %.2f s of the D2H stream thread"
                + " (%.0f%% of the live median; the gap is %.2f s).", fill, 100 * fill / row.liveMedian(), row.liveMedian() - row.sim());
    }

    static void write(Path folder, String text) throws IOException {
        Files.writeString(folder.resolve(ValidationReport.REPORT), text);
    }
}
