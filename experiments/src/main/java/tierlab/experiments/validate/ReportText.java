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

    static String render(ValidationFile file, String command, String hostLine, String calibration, NvmeProfile nvme,
                         List<ValidationReport.WorkloadResult> results, List<String> chartFailures) {
        StringBuilder md = new StringBuilder();
        md.append("# Validation: ").append(file.name()).append("\n\n");
        if (!file.description().isBlank()) {
            md.append(file.description().strip()).append("\n\n");
        }
        md.append("Command: `").append(command).append("`\n\n");
        md.append("Host: ").append(hostLine).append("\n\n");
        // The runs made, which --repeats may have set instead of the file's repeats.
        int runs = results.isEmpty() ? file.repeats() : results.getFirst().live().size();
        md.append("Each workload ran live ").append(runs).append(" time(s) (wall clock, io_uring on a real L2 file,")
                .append(" a real pinned L1, every load and staging copy checked against its payload) and once in the simulator")
                .append(" on the fitted profile with the same seed (").append(file.seed()).append("). Relative error = (sim − live")
                .append(" median) / live median; spread = (max − min) / median of the live runs. **Bold**: more than 10% off.\n\n");
        md.append("## Calibration\n\n```\n").append(calibration.strip()).append("\n```\n\n");
        results.forEach(result -> workloadSection(md, result));
        md.append("## Discussion of every metric more than 10% off\n\n");
        boolean any = false;
        for (ValidationReport.WorkloadResult result : results) {
            for (Comparison.Row row : result.rows()) {
                if (Math.abs(row.relativeError()) > ValidationReport.DISCUSS_ABOVE) {
                    any = true;
                    md.append("- **").append(result.name()).append(' ').append(row.pass()).append('.').append(row.metric())
                            .append("** ").append(pct(row.relativeError())).append(": ").append(explain(row, result.decisions()))
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

    /** One workload: its runs, the comparison table, the decisions and its charts. */
    private static void workloadSection(StringBuilder md, ValidationReport.WorkloadResult result) {
        md.append("## ").append(result.name()).append("\n\n");
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
            md.append("- the live runs copied through CUDA: with verification, the compute stream writes each computed"
                    + " block's payload into device memory within the step's modelled time (a live-mode check, not a model"
                    + " term)\n\n");
        } else {
            md.append("- not in the model (live-mode emulation, no GPU): the D2H stream writes each computed block's payload into"
                    + " L1 when it stages it, measured at ").append(String.format(Locale.ROOT, "%,.0f", result.computeFillNsPerMiB()))
                    .append(" ns/MiB:");
            for (var pass : result.sim().passes()) {
                md.append(' ').append(pass.pass()).append(' ').append(String.format(Locale.ROOT, "%.2f s", result.fillSeconds(pass.pass())));
            }
            md.append("\n\n");
        }
        md.append("| pass | metric | live median | live min – max | spread | sim | error |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|\n");
        for (Comparison.Row row : result.rows()) {
            boolean off = Math.abs(row.relativeError()) > ValidationReport.DISCUSS_ABOVE;
            String error = pct(row.relativeError());
            md.append("| ").append(row.pass()).append(" | ").append(row.metric()).append(" (").append(row.unit()).append(") | ")
                    .append(fmt(row.liveMedian())).append(" | ")
                    .append(Double.isNaN(row.liveMin()) ? "–" : fmt(row.liveMin()) + " – " + fmt(row.liveMax())).append(" | ")
                    .append(pct(row.liveSpread()).replace("+", "")).append(" | ").append(fmt(row.sim())).append(" | ")
                    .append(off ? "**" + error + "**" : error).append(" |\n");
        }
        Comparison.Decisions d = result.decisions();
        md.append("\nDecisions (each request's lookup: hit class, first block, blocks hit): ").append(d.identical()).append(" of ")
                .append(d.requests()).append(" identical to the first live run's, in ")
                .append(d.sameOrder() ? "the same order" : "a different order").append("; ").append(d.liveRepeatsAgreeing())
                .append(" of ").append(result.live().size()).append(" live runs identical to the simulation; lookups made: sim ")
                .append(d.simLookupCalls()).append(", live ").append(d.liveLookupCalls()).append(".");
        md.append(d.firstDivergence() == null ? " No divergence in the lookups." : " First divergence: " + d.firstDivergence() + ".");
        md.append(d.kindsThatDiffer().isEmpty() ? " Every other decision kind was made as often in both runs.\n\n"
                : " Decision kinds made a different number of times (sim/live): " + d.kindsThatDiffer()
                + ". These are decisions that timing decides: which read joins a promotion already in flight, which"
                + " request waits for a lease or a staging slot, when a request is parked.\n\n");
        md.append("Charts: `ttft-scatter-").append(result.name()).append(".png`, `ttft-cdf-").append(result.name())
                .append(".png`, `l2-throughput-").append(result.name()).append(".png`.\n\n");
    }

    /** Why a metric can be off, from what the model does and does not contain; the numbers say which case this is. */
    static String explain(Comparison.Row row, Comparison.Decisions decisions) {
        String within = row.withinLiveRange() ? " The simulated value lies within the live runs' own range (spread "
                + pct(row.liveSpread()).replace("+", "") + "), so this error is not distinguishable from live noise."
                : Double.isNaN(row.liveSpread()) ? "" : " Live runs spread " + pct(row.liveSpread()).replace("+", "") + " among themselves.";
        String decisionNote = decisions.identical() == decisions.requests() ? ""
                : " Decisions differ for " + (decisions.requests() - decisions.identical()) + " of " + decisions.requests()
                        + " requests, so part of this is a different run, not a different clock.";
        String metric = row.metric();
        if (metric.startsWith("l2") || metric.equals("l1HitRatio")) {
            return "bytes, operations and hit ratios follow from the decisions alone (no timing term enters them)."
                    + (decisionNote.isEmpty() ? (decisions.kindsThatDiffer().isEmpty()
                    ? " Every decision count agrees, so this is a counting difference to investigate."
                    : " The lookups agree, but not every decision behind them: " + decisions.kindsThatDiffer()
                    + " (sim/live).") : decisionNote) + within;
        }
        if (metric.equals("ioUringEnters")) {
            return "live hands the engine one submission per read batch and one per tick's writes, spread over its ring"
                    + " threads in turn, and a ring folds whatever reached it before its next io_uring_enter into that call; the"
                    + " simulator folds the same way over the profile's host.ioRings rings (one call per submission without"
                    + " it) but has no wake-up latency: a live ring that wakes between two submissions of one tick folds less,"
                    + " one that wakes late on a loaded host folds more." + within;
        }
        if (metric.startsWith("ttftPerRequest")) {
            return "the per-request error is the sum of every timing difference below, request by request; the live runs'"
                    + " own per-request spread (" + pct(row.liveSpread()).replace("+", "") + ") is the floor it can reach.";
        }
        boolean simFaster = (metric.equals("promptTokensPerS") ? -row.relativeError() : row.relativeError()) < 0;
        return (simFaster
                ? "the simulation is faster than live. Live pays costs the model does not contain: the hand-off of each"
                + " completion from a ring thread to the model thread (a queue poll), the emulation's writing of each computed"
                + " block's payload (with host buffers into L1 by the D2H stream at staging; with CUDA and verification into"
                + " device memory by the compute stream; a live-mode check, not a model term), with CUDA and verification the"
                + " copy of every load back from the GPU and its comparison (also a check), the per-copy costs of a load's"
                + " segments on the CUDA path (one cudaMemcpyAsync per segment and layer group; the model charges one link"
                + " latency per load or group), JVM pauses, and on a shared VM other processes' CPU."
                : "the simulation is slower than live. The model charges more than live spends: the NVMe fit (a short grid"
                + " of sizes and depths) over-predicts service time at this workload's transfer sizes and depths, the"
                + " drive wrote the fresh L2 file faster during the live runs than in the calibration's one first-write"
                + " measurement (a drive that drifts), or host costs measured one at a time overlap with device time in"
                + " live.") + decisionNote + within;
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
