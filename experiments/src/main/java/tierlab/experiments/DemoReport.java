package tierlab.experiments;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import tierlab.workload.MooncakeTrace;
import tierlab.workload.RequestTrace;

/**
 * The replay command's report.md: what was run, the exact command, the tables, the chart and a few
 * observations. Every number and every claim in it is computed from the curves, so it stays true
 * when the trace, the capacities or the policies change.
 */
public final class DemoReport {

    /** Hit-ratio differences up to this (one percentage point) count as "close to the best". */
    static final double NEAR_BEST = 0.01;

    private DemoReport() {
    }

    /**
     * @param curves         the sweep's results
     * @param trace          the trace it replayed
     * @param command        the command as typed (for example {@code ./tierlab replay})
     * @param fullCommand    the same command with every setting spelled out
     * @param chartFileName  the PNG beside the report
     * @param csvFileName    the CSV beside the report
     * @param svgFileName    the SVG beside the report
     */
    public static String markdown(MissRatioCurves curves, MooncakeTrace trace, String command, String fullCommand,
                                  String chartFileName, String csvFileName, String svgFileName) {
        return markdown(curves, RequestTrace.of(trace), command, fullCommand, chartFileName, csvFileName, svgFileName);
    }

    /** The same for a trace of any format ({@code tierlab replay --format}). */
    public static String markdown(MissRatioCurves curves, RequestTrace trace, String command, String fullCommand,
                                  String chartFileName, String csvFileName, String svgFileName) {
        StringBuilder md = new StringBuilder();
        md.append("# tierlab replay: block miss-ratio curves of a ").append(formatTitle(trace.format()))
                .append(" trace\n\n");

        md.append("## What was run\n\n");
        md.append("The block references of `").append(trace.file()).append("` (")
                .append(count(trace.requests().size())).append(" requests, ")
                .append(count(curves.references())).append(trace.blockTokens() > 0
                        ? " block references of " + trace.blockTokens() + " tokens, " : " references to cache objects, ")
                .append(count(curves.distinctBlocks())).append(" distinct blocks) were replayed through ")
                .append(curves.policies().size()).append(" replacement policies (")
                .append(String.join(", ", curves.policies().stream().map(p -> "`" + p + "`").toList()))
                .append(") at ").append(curves.capacities().size()).append(" L1 capacities (")
                .append(String.join(", ", curves.capacities().stream().map(DemoReport::count).toList()))
                .append(" blocks): ").append(curves.points().size())
                .append(" replays with `CacheReplay`'s request-grouped overload (each request is one group and")
                .append(" each block's position is its index in the prompt). Every miss inserts the block, evicting")
                .append(" the policy's victim when the cache is full. `belady` is the offline optimum (it is given the")
                .append(" whole future reference stream); the *infinite cache* (a block hits if it was referenced")
                .append(" before) is the bound no capacity can beat: hit ratio ")
                .append(percent(curves.infiniteHitRatio())).append(", miss ratio ")
                .append(ratio(curves.infiniteMissRatio())).append(".\n\n");

        md.append("Command (from the repository root):\n\n");
        md.append("```sh\n").append(command).append("\n```\n\n");
        md.append("With every setting spelled out:\n\n");
        md.append("```sh\n").append(fullCommand).append("\n```\n\n");

        md.append("## Miss ratio (misses / references)\n\n");
        appendPivot(md, curves, false);
        md.append("\n## Share of the infinite-cache hit ratio captured\n\n");
        appendPivot(md, curves, true);
        md.append("\nOne row per policy and capacity, with hit and miss counts: [`").append(csvFileName)
                .append("`](").append(csvFileName).append(").\n\n");

        md.append("## Chart\n\n");
        md.append("![Block miss ratio by L1 capacity](").append(chartFileName).append(")\n\n");
        md.append("Vector version: [`").append(svgFileName).append("`](").append(svgFileName).append(").\n\n");

        md.append("## Observations\n\n");
        for (String observation : observations(curves)) {
            md.append("- ").append(observation).append('\n');
        }
        return md.toString();
    }

    /** How a format is named in titles: Mooncake, Qwen-Bailian, Azure LLM inference, or the registry name. */
    public static String formatTitle(String format) {
        return switch (format) {
            case "mooncake" -> "Mooncake";
            case "qwen" -> "Qwen-Bailian";
            case "azure" -> "Azure LLM inference";
            default -> "libCacheSim " + format;
        };
    }

    /** Two or three sentences about the curves, computed from them. */
    public static List<String> observations(MissRatioCurves curves) {
        List<String> sentences = new ArrayList<>();
        List<String> online = curves.onlinePolicies();
        if (online.isEmpty()) {
            return sentences;
        }
        sentences.add(smallestCapacity(curves, online));
        sentences.add(largestCapacity(curves, online));
        if (curves.capacities().size() > 1 && online.size() > 1) {
            sentences.add(rankingAcrossSizes(curves, online));
        }
        return sentences;
    }

    /** The smallest cache: who wins, by how much, and how far from the optimum. */
    private static String smallestCapacity(MissRatioCurves curves, List<String> online) {
        long smallest = curves.capacities().getFirst();
        String belady = curves.offlineBound();
        List<String> bestSmall = best(curves, online, smallest);
        List<String> worstSmall = worst(curves, online, smallest);
        double bestSmallHit = curves.point(bestSmall.getFirst(), smallest).hitRatio();
        double worstSmallHit = curves.point(worstSmall.getFirst(), smallest).hitRatio();
        StringBuilder first = new StringBuilder("At the smallest capacity (" + count(smallest) + " blocks) ")
                .append(names(bestSmall)).append(bestSmall.size() > 1 ? " tie as the best online policies" : " is the best online policy")
                .append(" with a hit ratio of ").append(percent(bestSmallHit));
        if (!worstSmall.equals(bestSmall)) {
            first.append(" (worst: ").append(names(worstSmall)).append(", ").append(percent(worstSmallHit)).append(')');
        }
        if (belady != null) {
            double beladyHit = curves.point(belady, smallest).hitRatio();
            first.append("; `" + belady + "` reaches ").append(percent(beladyHit));
            if (beladyHit > 0) {
                first.append(", so the best online policy gets ").append(percent(bestSmallHit / beladyHit))
                        .append(" of the offline optimum");
            }
        }
        return first.append('.').toString();
    }

    /** The largest cache against the infinite-cache bound (E4: how much of it each configuration captures). */
    private static String largestCapacity(MissRatioCurves curves, List<String> online) {
        long largest = curves.capacities().getLast();
        String belady = curves.offlineBound();
        List<String> bestLarge = best(curves, online, largest);
        double bestLargeHit = curves.point(bestLarge.getFirst(), largest).hitRatio();
        double infinite = curves.infiniteHitRatio();
        StringBuilder second = new StringBuilder("At the largest capacity (" + count(largest) + " blocks, "
                + percent((double) largest / Math.max(1, curves.distinctBlocks())) + " of the trace's distinct blocks) ")
                .append(names(bestLarge)).append(bestLarge.size() > 1 ? " hit " : " hits ")
                .append(percent(bestLargeHit)).append(" of references against ").append(percent(infinite))
                .append(" for an infinite cache");
        if (infinite > 0) {
            second.append(" (").append(percent(bestLargeHit / infinite)).append(" of it captured");
            if (belady != null) {
                second.append("; `" + belady + "` captures ")
                        .append(percent(curves.point(belady, largest).hitRatio() / infinite));
            }
            second.append(')');
        }
        return second.append('.').toString();
    }

    /**
     * Does the ranking hold across sizes? Which policies stay close to the best everywhere, and which
     * one trails. Differences under NEAR_BEST are too small to call a winner.
     */
    private static String rankingAcrossSizes(MissRatioCurves curves, List<String> online) {
        List<Long> capacities = curves.capacities();
        List<String> nearBest = online.stream()
                .filter(p -> capacities.stream().allMatch(c -> bestHitRatio(curves, online, c)
                        - curves.point(p, c).hitRatio() <= NEAR_BEST))
                .toList();
        String trailing = null;
        int trailingCount = 0;
        for (String policy : online) {
            int worstCount = (int) capacities.stream().filter(c -> worst(curves, online, c).contains(policy)).count();
            if (worstCount > trailingCount) {
                trailing = policy;
                trailingCount = worstCount;
            }
        }
        StringBuilder third = new StringBuilder();
        if (nearBest.isEmpty()) {
            third.append("No online policy stays within ").append(points(NEAR_BEST))
                    .append(" of the best at every capacity swept");
        } else {
            third.append(names(nearBest)).append(nearBest.size() > 1 ? " stay" : " stays").append(" within ")
                    .append(points(NEAR_BEST)).append(" of the best online policy at every capacity swept");
        }
        if (trailing != null) {
            String worstPolicy = trailing;
            double maxGap = capacities.stream()
                    .mapToDouble(c -> bestHitRatio(curves, online, c) - curves.point(worstPolicy, c).hitRatio())
                    .max().orElse(0);
            third.append(", while `").append(worstPolicy).append("` is the worst at ").append(trailingCount)
                    .append(" of ").append(capacities.size()).append(" capacities and trails the best by up to ")
                    .append(points(maxGap));
        }
        return third.append('.').toString();
    }

    public static void appendPivot(StringBuilder md, MissRatioCurves curves, boolean shareOfInfinite) {
        md.append("| policy |");
        for (long capacity : curves.capacities()) {
            md.append(' ').append(count(capacity)).append(" |");
        }
        md.append("\n|---|");
        md.append("---:|".repeat(curves.capacities().size()));
        md.append('\n');
        for (String policy : curves.policies()) {
            md.append("| ").append(policy).append(" |");
            for (long capacity : curves.capacities()) {
                MissRatioPoint point = curves.point(policy, capacity);
                String cell = shareOfInfinite
                        ? (curves.infiniteHitRatio() == 0 ? "–" : percent(point.hitRatio() / curves.infiniteHitRatio()))
                        : ratio(point.missRatio());
                md.append(' ').append(cell).append(" |");
            }
            md.append('\n');
        }
        md.append("| *infinite cache* |");
        String bound = shareOfInfinite ? percent(1.0) : ratio(curves.infiniteMissRatio());
        md.append((" " + bound + " |").repeat(curves.capacities().size())).append('\n');
    }

    /** The online policies with the most hits at {@code capacity}, in sweep order. */
    static List<String> best(MissRatioCurves curves, List<String> online, long capacity) {
        long most = online.stream().mapToLong(p -> curves.point(p, capacity).result().hits()).max().orElse(0);
        return online.stream().filter(p -> curves.point(p, capacity).result().hits() == most).toList();
    }

    private static List<String> worst(MissRatioCurves curves, List<String> online, long capacity) {
        long fewest = online.stream().mapToLong(p -> curves.point(p, capacity).result().hits()).min().orElse(0);
        return online.stream().filter(p -> curves.point(p, capacity).result().hits() == fewest).toList();
    }

    private static double bestHitRatio(MissRatioCurves curves, List<String> online, long capacity) {
        return curves.point(best(curves, online, capacity).getFirst(), capacity).hitRatio();
    }

    private static String names(List<String> policies) {
        List<String> quoted = policies.stream().map(p -> "`" + p + "`").toList();
        if (quoted.size() == 1) {
            return quoted.getFirst();
        }
        return String.join(", ", quoted.subList(0, quoted.size() - 1)) + " and " + quoted.getLast();
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }

    private static String points(double fraction) {
        double value = 100 * fraction;
        return String.format(Locale.ROOT, value == 1.0 ? "%.0f percentage point" : "%.1f percentage points", value);
    }

    static String ratio(double value) {
        return String.format(Locale.ROOT, "%.4f", value);
    }

    static String count(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }
}
