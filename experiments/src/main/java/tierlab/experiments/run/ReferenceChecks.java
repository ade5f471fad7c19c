package tierlab.experiments.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.stat.descriptive.SummaryStatistics;
import tierlab.experiments.run.ExperimentFile.ReferenceCheck;

/**
 * {@code reference.checks}: claims about the runs, each evaluated against the tables a run wrote
 * (results.csv) and shown in {@code report.md} with the computed value, the bound and PASS or FAIL,
 * so the report's prose never has to carry a figure of its own. A check that cannot be evaluated
 * (no run matches its selection, a mean that is not a number, a ratio to zero) fails with that reason.
 */
public final class ReferenceChecks {

    /** The mean of a metric over the runs of a selection; {@code runs} 0 when nothing matched. */
    public record Selection(double mean, long runs) {}

    /**
     * One check evaluated: its selection, the other side's ({@code ratioTo} or {@code differenceTo}; null
     * without either), the value compared with the bound (the mean, or the ratio or difference of the
     * two), and why it failed when it could not be evaluated (null when it was).
     */
    public record Evaluated(ReferenceCheck check, Selection value, Selection other, double compared, boolean passed,
                            String reason) {}

    private ReferenceChecks() {
    }

    /**
     * What is wrong with a check's shape, as "FIELD: message", or null: a claim and a metric, and either
     * {@code near} with a {@code tolerance} or one or two bounds (at most one upper, one lower, the
     * lower below the upper), every number finite.
     */
    public static String shapeProblem(ReferenceCheck check) {
        if (check.claim() == null || check.claim().isBlank()) {
            return "claim: a check states its claim in words";
        }
        if (check.metric() == null) {
            return "metric: missing (the metric whose mean the check compares)";
        }
        for (Map.Entry<String, Double> number : numbers(check).entrySet()) {
            if (number.getValue() != null && !Double.isFinite(number.getValue())) {
                return number.getKey() + ": a finite number";
            }
        }
        if (check.below() != null && check.atMost() != null) {
            return "atMost: one upper bound, below (<) or atMost (<=)";
        }
        if (check.above() != null && check.atLeast() != null) {
            return "atLeast: one lower bound, above (>) or atLeast (>=)";
        }
        boolean bounded = check.below() != null || check.atMost() != null || check.above() != null || check.atLeast() != null;
        if (check.near() != null) {
            if (bounded) {
                return "near: either near (with tolerance) or bounds (below, atMost, above, atLeast), not both";
            }
            if (check.tolerance() == null) {
                return "tolerance: near needs a tolerance, a fraction of |near| (0.1 = within 10%)";
            }
            if (check.tolerance() < 0) {
                return "tolerance: a fraction of |near|, 0 or more";
            }
        } else if (check.tolerance() != null) {
            return "tolerance: only with near";
        } else if (!bounded) {
            return "near: a check compares with near (and tolerance), below, atMost, above or atLeast";
        }
        Double upper = check.below() != null ? check.below() : check.atMost();
        Double lower = check.above() != null ? check.above() : check.atLeast();
        if (upper != null && lower != null && (lower > upper || lower.equals(upper) && (check.below() != null
                || check.above() != null))) {
            return (check.below() != null ? "below" : "atMost") + ": no value can pass: the lower bound " + plain(lower) + " is not below the upper " + plain(upper);
        }
        if (check.fittedFrom() != null && !Boolean.TRUE.equals(check.fitted())) {
            return "fittedFrom: names what a fitted check was fitted to; set fitted: true";
        }
        if (check.ratioTo() != null && check.differenceTo() != null) {
            return "differenceTo: a check compares with one other selection, ratioTo or differenceTo";
        }
        if (other(check) != null && other(check).where() == null && other(check).metric() == null) {
            return otherField(check) + ": the other selection, {metric, where}; at least one of them";
        }
        return null;
    }

    /** The other side of a relative check, {@code ratioTo} or {@code differenceTo}; null for an absolute one. */
    static ExperimentFile.OtherRuns other(ReferenceCheck check) {
        return check.ratioTo() != null ? check.ratioTo() : check.differenceTo();
    }

    static String otherField(ReferenceCheck check) {
        return check.ratioTo() != null ? "ratioTo" : "differenceTo";
    }

    private static Map<String, Double> numbers(ReferenceCheck check) {
        Map<String, Double> numbers = new java.util.LinkedHashMap<>();
        numbers.put("near", check.near());
        numbers.put("tolerance", check.tolerance());
        numbers.put("below", check.below());
        numbers.put("atMost", check.atMost());
        numbers.put("above", check.above());
        numbers.put("atLeast", check.atLeast());
        return numbers;
    }

    /** Every check of the list evaluated against {@code tables}, in order. */
    public static List<Evaluated> evaluate(List<ReferenceCheck> checks, RunTables tables) {
        List<Evaluated> evaluated = new ArrayList<>();
        if (checks == null) {
            return evaluated;
        }
        for (ReferenceCheck check : checks) {
            evaluated.add(evaluate(check, tables));
        }
        return evaluated;
    }

    static Evaluated evaluate(ReferenceCheck check, RunTables tables) {
        Selection value = select(tables, check.metric(), check.where());
        String unusable = unusable(value, check.where(), "");
        if (unusable != null) {
            return new Evaluated(check, value, null, Double.NaN, false, unusable);
        }
        ExperimentFile.OtherRuns other = other(check);
        if (other == null) {
            return new Evaluated(check, value, null, value.mean(), holds(check, value.mean()), null);
        }
        Selection otherValue = select(tables, other.metric() != null ? other.metric() : check.metric(), other.where());
        String field = otherField(check);
        unusable = unusable(otherValue, other.where(), field + ": ");
        if (unusable == null && check.ratioTo() != null && otherValue.mean() == 0) {
            unusable = "ratioTo: its mean is 0, so there is no ratio";
        }
        if (unusable != null) {
            return new Evaluated(check, value, otherValue, Double.NaN, false, unusable);
        }
        double compared = check.ratioTo() != null ? value.mean() / otherValue.mean() : value.mean() - otherValue.mean();
        return new Evaluated(check, value, otherValue, compared, holds(check, compared), null);
    }

    private static String unusable(Selection selection, Map<String, JsonNode> where, String prefix) {
        if (selection.runs() == 0) {
            return prefix + "no run matches " + (where == null ? "(all runs)" : "where " + ReportWriter.where(where));
        }
        if (Double.isNaN(selection.mean())) {
            return prefix + "the metric is not a number in the matching runs";
        }
        return null;
    }

    /** The mean of {@code metric} over every run of the cells matching {@code where}, as the reference rows compute it. */
    static Selection select(RunTables tables, String metric, Map<String, JsonNode> where) {
        SummaryStatistics statistics = new SummaryStatistics();
        for (RunTables.Cell cell : tables.cells()) {
            if (cell.matches(where)) {
                for (RunTables.Row run : cell.runs()) {
                    Double value = run.metrics().get(metric);
                    statistics.addValue(value == null ? Double.NaN : value);
                }
            }
        }
        return new Selection(statistics.getN() == 0 ? Double.NaN : statistics.getMean(), statistics.getN());
    }

    static boolean holds(ReferenceCheck check, double value) {
        if (check.near() != null) {
            return Math.abs(value - check.near()) <= check.tolerance() * Math.abs(check.near());
        }
        return (check.below() == null || value < check.below()) && (check.atMost() == null || value <= check.atMost())
                && (check.above() == null || value > check.above()) && (check.atLeast() == null || value >= check.atLeast());
    }

    /** The bound in words: "within 10% of 100.41", "≥ 3", "> 0.5 and ≤ 0.6"; "ratio" or "difference" in front for a relative check. */
    static String bound(ReferenceCheck check) {
        String subject = check.ratioTo() != null ? "ratio " : check.differenceTo() != null ? "difference " : "";
        if (check.near() != null) {
            return subject + (check.tolerance() == 0 ? "= " + plain(check.near())
                    : "within " + plain(check.tolerance() * 100) + "% of " + plain(check.near()));
        }
        List<String> parts = new ArrayList<>();
        if (check.above() != null) {
            parts.add("> " + plain(check.above()));
        }
        if (check.atLeast() != null) {
            parts.add("≥ " + plain(check.atLeast()));
        }
        if (check.below() != null) {
            parts.add("< " + plain(check.below()));
        }
        if (check.atMost() != null) {
            parts.add("≤ " + plain(check.atMost()));
        }
        return subject + String.join(" and ", parts);
    }

    /** A bound as written: 100.41, 0.1, 3 (no float noise such as 10.000000000000002). */
    static String plain(double value) {
        return new BigDecimal(Double.toString(value)).round(new java.math.MathContext(12)).stripTrailingZeros()
                .toPlainString();
    }

    /** The report's checks table: a line of totals, then one row per check; nothing without checks. */
    static void markdown(StringBuilder md, List<Evaluated> evaluated) {
        if (evaluated.isEmpty()) {
            return;
        }
        long passed = evaluated.stream().filter(Evaluated::passed).count();
        md.append("### Checks\n\n").append(passed).append(" of ").append(evaluated.size()).append(" check")
                .append(evaluated.size() == 1 ? "" : "s").append(" pass, evaluated against `results.csv`; a fitted")
                .append(" check holds by construction, not as a prediction.\n\n")
                .append("| # | claim | tierlab | bound | fitted? | result | from |\n|---:|---|---:|---|---|---|---|\n");
        for (int i = 0; i < evaluated.size(); i++) {
            Evaluated e = evaluated.get(i);
            ReferenceCheck check = e.check();
            md.append("| ").append(i + 1).append(" | ").append(cell(check.claim())).append(" | ").append(value(e))
                    .append(" | ").append(bound(check)).append(" | ").append(fitted(check.fitted(), check.fittedFrom()))
                    .append(" | ").append(e.passed() ? "**PASS**" : "**FAIL**" + (e.reason() == null ? "" : ": " + e.reason()))
                    .append(" | ").append(from(check.metric(), check.where(), e.value().runs()));
            ExperimentFile.OtherRuns other = other(check);
            if (other != null) {
                md.append(check.ratioTo() != null ? " ÷ " : " − ").append(from(other.metric() != null ? other.metric()
                        : check.metric(), other.where(), e.other() == null ? 0 : e.other().runs()));
            }
            md.append(" |\n");
        }
        md.append('\n');
    }

    private static String value(Evaluated e) {
        if (e.other() == null) {
            return ReportWriter.number(e.value().mean());
        }
        return ReportWriter.number(e.value().mean()) + (e.check().ratioTo() != null ? " / " : " − ")
                + ReportWriter.number(e.other().mean()) + " = " + ReportWriter.number(e.compared());
    }

    /** The "fitted?" cell of a row or a check: empty, or "**fitted**" with what it was fitted to. */
    static String fitted(Boolean fitted, String fittedFrom) {
        if (!Boolean.TRUE.equals(fitted)) {
            return "";
        }
        return "**fitted**" + (fittedFrom == null ? "" : " (" + cell(fittedFrom) + ")");
    }

    private static String from(String metric, Map<String, JsonNode> where, long runs) {
        return "`" + metric + "`" + (where == null ? "" : " where " + ReportWriter.where(where)) + ", " + runs + " run"
                + (runs == 1 ? "" : "s");
    }

    /** Text in a table cell: a '|' would end the cell, a line break the row. */
    private static String cell(String text) {
        return text.strip().replace("|", "\\|").replaceAll("\\s*\\R\\s*", " ");
    }
}
