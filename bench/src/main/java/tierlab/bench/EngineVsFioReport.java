package tierlab.bench;

import java.io.StringWriter;
import java.util.List;
import java.util.Locale;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The reports of {@link EngineVsFio}: the markdown summary with the submission-batching table, and the
 * three CSVs (per case, per round, batching).
 */
final class EngineVsFioReport {

    private EngineVsFioReport() {
    }

    static String markdown(String header, List<EngineVsFio.CaseSummary> summaries, List<SubmissionBatchingProbe.Result> batching) {
        StringBuilder md = new StringBuilder();
        md.append(header).append('\n');
        md.append("| case | engine MiB/s (median) | fio MiB/s (median) | ratio engine/fio (median) | ratio min–max | engine io_uring_enter/op |\n");
        md.append("|---|---:|---:|---:|---:|---:|\n");
        for (EngineVsFio.CaseSummary s : summaries) {
            md.append(Double.isNaN(s.fioMibMedian())
                    ? String.format(Locale.ROOT, "| %s | %.1f | – | – | – | %.2f |%n", s.benchCase().name(), s.engineMibMedian(),
                    s.engineEnterPerOpMedian())
                    : String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.3f | %.3f–%.3f | %.2f |%n", s.benchCase().name(),
                    s.engineMibMedian(), s.fioMibMedian(), s.ratioMedian(), s.ratioMin(), s.ratioMax(), s.engineEnterPerOpMedian()));
        }
        for (EngineVsFio.CaseSummary s : summaries) {
            if (s.benchCase().access() == BenchCase.Access.RANDOM_READ && s.benchCase().queueDepth() == 8
                    && s.benchCase().blockBytes() == 128 << 10 && !Double.isNaN(s.ratioMedian())) {
                md.append(String.format(Locale.ROOT, "%nTarget (engine within 5%% of fio): median ratio >= 0.95 for 128 KiB random reads at QD 8: "
                        + "%.3f over %d round(s), %s.%n", s.ratioMedian(), s.rounds(), s.ratioMedian() >= 0.95 ? "met" : "NOT met"));
            }
        }
        if (!batching.isEmpty()) {
            SubmissionBatchingProbe.Result first = batching.getFirst();
            md.append(String.format(Locale.ROOT, "%nio_uring_enter calls per read, the same %d random 128 KiB reads in groups of %d on one ring:%n%n",
                    first.reads(), EngineVsFio.BATCH_SIZE));
            md.append("| submission | submit() calls / read | submitting io_uring_enter / read | all io_uring_enter / read | ring wake-ups / read |\n");
            md.append("|---|---:|---:|---:|---:|\n");
            for (SubmissionBatchingProbe.Result b : batching) {
                md.append(String.format(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | %.3f |%n", b.mode().equals("batched")
                                ? "batched (" + EngineVsFio.BATCH_SIZE + " per submit)" : "unbatched (1 per submit)",
                        b.submitCallsPerRead(), b.submitEnterCallsPerRead(), b.enterCallsPerRead(), (double) b.wakeups() / b.reads()));
            }
        }
        return md.toString();
    }

    // The CSVs are Tablesaw tables (quoting and escaping are the library's). Decimal figures are
    // kept as text at a fixed precision, so the files read the same as the markdown report.

    static String summaryCsv(List<EngineVsFio.CaseSummary> summaries) {
        Table table = Table.create("engine-vs-fio",
                StringColumn.create("case"), StringColumn.create("access"), IntColumn.create("block_bytes"),
                IntColumn.create("queue_depth"), IntColumn.create("rounds"), StringColumn.create("engine_mib_s_median"),
                StringColumn.create("fio_mib_s_median"), StringColumn.create("ratio_median"), StringColumn.create("ratio_min"),
                StringColumn.create("ratio_max"), StringColumn.create("engine_enter_calls_per_op_median"),
                StringColumn.create("ratios"));
        for (EngineVsFio.CaseSummary s : summaries) {
            table.stringColumn("case").append(s.benchCase().name());
            table.stringColumn("access").append(s.benchCase().access().fioRw());
            table.intColumn("block_bytes").append(s.benchCase().blockBytes());
            table.intColumn("queue_depth").append(s.benchCase().queueDepth());
            table.intColumn("rounds").append(s.rounds());
            table.stringColumn("engine_mib_s_median").append(fixed(s.engineMibMedian(), 2));
            table.stringColumn("fio_mib_s_median").append(fixed(s.fioMibMedian(), 2));
            table.stringColumn("ratio_median").append(fixed(s.ratioMedian(), 4));
            table.stringColumn("ratio_min").append(fixed(s.ratioMin(), 4));
            table.stringColumn("ratio_max").append(fixed(s.ratioMax(), 4));
            table.stringColumn("engine_enter_calls_per_op_median").append(fixed(s.engineEnterPerOpMedian(), 4));
            table.stringColumn("ratios").append(Double.isNaN(s.ratioMedian()) ? "" : BenchStats.join(s.ratios(), "%.4f"));
        }
        return csv(table);
    }

    static String roundsCsv(List<EngineVsFio.Round> rounds) {
        Table table = Table.create("engine-vs-fio-rounds",
                StringColumn.create("case"), IntColumn.create("round"), StringColumn.create("first"),
                StringColumn.create("engine_mib_s"), StringColumn.create("fio_mib_s"), StringColumn.create("ratio"),
                LongColumn.create("engine_ops"), StringColumn.create("engine_seconds"), LongColumn.create("engine_enter_calls"),
                LongColumn.create("engine_submit_enter_calls"), LongColumn.create("fio_io_bytes"),
                LongColumn.create("fio_runtime_ms"), StringColumn.create("fio_iops"));
        for (EngineVsFio.Round r : rounds) {
            table.stringColumn("case").append(r.benchCase().name());
            table.intColumn("round").append(r.round());
            table.stringColumn("first").append(r.engineFirst() ? "engine" : "fio");
            table.stringColumn("engine_mib_s").append(fixed(r.engine().mibPerSecond(), 2));
            table.stringColumn("fio_mib_s").append(fixed(r.fioMibPerSecond(), 2));
            table.stringColumn("ratio").append(fixed(r.ratio(), 4));
            table.longColumn("engine_ops").append(r.engine().ops());
            table.stringColumn("engine_seconds").append(fixed(r.engine().elapsedNs() / 1e9, 3));
            table.longColumn("engine_enter_calls").append(r.engineCounters().enterCalls());
            table.longColumn("engine_submit_enter_calls").append(r.engineCounters().submitEnterCalls());
            if (r.fio() == null) {
                table.longColumn("fio_io_bytes").appendMissing();
                table.longColumn("fio_runtime_ms").appendMissing();
                table.stringColumn("fio_iops").append("");
            } else {
                table.longColumn("fio_io_bytes").append(r.fio().ioBytes());
                table.longColumn("fio_runtime_ms").append(r.fio().runtimeMs());
                table.stringColumn("fio_iops").append(fixed(r.fio().iops(), 1));
            }
        }
        return csv(table);
    }

    static String batchingCsv(List<SubmissionBatchingProbe.Result> batching) {
        Table table = Table.create("engine-vs-fio-batching",
                StringColumn.create("mode"), LongColumn.create("reads"), LongColumn.create("submit_calls"),
                LongColumn.create("enter_calls"), LongColumn.create("submit_enter_calls"), LongColumn.create("wakeups"),
                StringColumn.create("enter_calls_per_read"), StringColumn.create("submit_enter_calls_per_read"));
        for (SubmissionBatchingProbe.Result b : batching) {
            table.stringColumn("mode").append(b.mode());
            table.longColumn("reads").append(b.reads());
            table.longColumn("submit_calls").append(b.submitCalls());
            table.longColumn("enter_calls").append(b.enterCalls());
            table.longColumn("submit_enter_calls").append(b.submitEnterCalls());
            table.longColumn("wakeups").append(b.wakeups());
            table.stringColumn("enter_calls_per_read").append(fixed(b.enterCallsPerRead(), 4));
            table.stringColumn("submit_enter_calls_per_read").append(fixed(b.submitEnterCallsPerRead(), 4));
        }
        return csv(table);
    }

    /** A figure at a fixed precision; a figure not measured (NaN: no fio) is an empty cell. */
    private static String fixed(double value, int decimals) {
        if (Double.isNaN(value)) {
            return "";
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    private static String csv(Table table) {
        StringWriter text = new StringWriter();
        table.write().csv(text);
        return text.toString();
    }
}
