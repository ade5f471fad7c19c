package tierlab.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What the benchmark reads from one fio job's {@code --output-format=json} report: the job's error
 * code and, from the {@code read} or {@code write} section, the bytes moved, the run time and the
 * bandwidth. Everything else in the report is ignored.
 *
 * <pre>
 *   { "fio version": "fio-3.33",
 *     "jobs": [ { "jobname": "randread-128k-qd8", "error": 0,
 *                 "read":  { "io_bytes": ..., "bw_bytes": ..., "iops": ..., "runtime": ms, ... },
 *                 "write": { ... }, ... } ] }
 * </pre>
 *
 * @param fioVersion        "fio-3.33"
 * @param jobName           the job's name (the bench case's name)
 * @param ioBytes           bytes moved in the measured direction
 * @param runtimeMs         the job's run time for that direction in milliseconds
 * @param bandwidthBytesPerSecond fio's {@code bw_bytes}: ioBytes over runtime
 * @param iops              fio's {@code iops}
 */
public record FioResult(String fioVersion, String jobName, long ioBytes, long runtimeMs, double bandwidthBytesPerSecond,
                        double iops) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A fio report that cannot be used, with a sentence saying why. */
    public static final class FioOutputException extends Exception {
        public FioOutputException(String message) {
            super(message);
        }
    }

    public double mibPerSecond() {
        return bandwidthBytesPerSecond / (1 << 20);
    }

    /**
     * Parses fio's JSON report, reading the {@code write} section when {@code write}, else {@code read}.
     * Text before the first '{' (fio prints some warnings on stdout) is skipped.
     *
     * @throws FioOutputException when the text is not fio JSON, a field is missing, the job reports
     *                            an error, or it moved no bytes
     */
    public static FioResult parse(String report, boolean write) throws FioOutputException {
        int start = report.indexOf('{');
        if (start < 0) {
            throw new FioOutputException("fio printed no JSON report" + excerpt(report));
        }
        JsonNode root;
        try {
            root = JSON.readTree(report.substring(start));
        } catch (JsonProcessingException e) {
            throw new FioOutputException("fio's report is not valid JSON: " + e.getOriginalMessage());
        }
        String version = root.path("fio version").asText("unknown fio version");
        JsonNode jobs = root.path("jobs");
        if (!jobs.isArray() || jobs.isEmpty()) {
            throw new FioOutputException("fio's report has no jobs (field \"jobs\" missing or empty)");
        }
        JsonNode job = jobs.get(0);
        String name = job.path("jobname").asText("?");
        long error = requireLong(job, "error", "jobs[0]");
        if (error != 0) {
            throw new FioOutputException("fio job " + name + " failed with error " + error + " (an errno: "
                    + errnoHint(error) + ")");
        }
        String direction = write ? "write" : "read";
        JsonNode section = job.path(direction);
        if (!section.isObject()) {
            throw new FioOutputException("fio job " + name + " has no \"" + direction + "\" section");
        }
        String where = "jobs[0]." + direction;
        long ioBytes = requireLong(section, "io_bytes", where);
        long runtimeMs = requireLong(section, "runtime", where);
        double bwBytes = requireDouble(section, "bw_bytes", where);
        double iops = requireDouble(section, "iops", where);
        if (ioBytes <= 0 || runtimeMs <= 0) {
            throw new FioOutputException("fio job " + name + " moved " + ioBytes + " bytes in " + runtimeMs
                    + " ms of " + direction + ": nothing to compare");
        }
        return new FioResult(version, name, ioBytes, runtimeMs, bwBytes, iops);
    }

    private static long requireLong(JsonNode node, String field, String where) throws FioOutputException {
        JsonNode value = node.get(field);
        if (value == null || !value.isNumber()) {
            throw new FioOutputException("fio's report has no number at " + where + "." + field);
        }
        return value.asLong();
    }

    private static double requireDouble(JsonNode node, String field, String where) throws FioOutputException {
        JsonNode value = node.get(field);
        if (value == null || !value.isNumber()) {
            throw new FioOutputException("fio's report has no number at " + where + "." + field);
        }
        return value.asDouble();
    }

    private static String errnoHint(long error) {
        return switch ((int) error) {
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 5 -> "EIO";
            case 13 -> "EACCES";
            case 22 -> "EINVAL, e.g. O_DIRECT refused or misaligned";
            case 28 -> "ENOSPC";
            case 38 -> "ENOSYS, io_uring missing";
            case 95 -> "EOPNOTSUPP";
            default -> "errno " + error;
        };
    }

    private static String excerpt(String text) {
        String trimmed = text.strip();
        if (trimmed.isEmpty()) {
            return "";
        }
        String line = trimmed.lines().findFirst().orElse("");
        return ": " + (line.length() > 200 ? line.substring(0, 200) + "..." : line);
    }
}
