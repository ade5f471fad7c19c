package tierlab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class FioResultTest {

    /**
     * The output of one real run of fio 3.33 on this machine
     * ({@code fio --name=randread-128k-qd8 --filename=probe.bin --size=64m --ioengine=io_uring --direct=1
     * --rw=randread --bs=128k --iodepth=8 --time_based --runtime=1 --output-format=json}), trimmed to
     * the fields around the ones the benchmark reads: latency histograms and disk_util removed.
     */
    static final String RANDREAD_SAMPLE = """
            {
              "fio version" : "fio-3.33",
              "timestamp" : 1796020787,
              "timestamp_ms" : 1796020787137,
              "time" : "Mon Nov 30 06:39:47 2026",
              "jobs" : [
                {
                  "jobname" : "randread-128k-qd8",
                  "groupid" : 0,
                  "error" : 0,
                  "eta" : 2147483647,
                  "elapsed" : 2,
                  "job options" : {
                    "name" : "randread-128k-qd8",
                    "filename" : "probe.bin",
                    "size" : "64m",
                    "ioengine" : "io_uring",
                    "direct" : "1",
                    "rw" : "randread",
                    "bs" : "128k",
                    "iodepth" : "8",
                    "runtime" : "1"
                  },
                  "read" : {
                    "io_bytes" : 1305477120,
                    "io_kbytes" : 1274880,
                    "bw_bytes" : 1304172947,
                    "bw" : 1273606,
                    "iops" : 9950.049950,
                    "runtime" : 1001,
                    "total_ios" : 9960,
                    "short_ios" : 0,
                    "drop_ios" : 0,
                    "clat_ns" : { "min" : 250112, "max" : 6443008, "mean" : 801004.5, "stddev" : 350000.1, "N" : 9960 },
                    "bw_min" : 1222656,
                    "bw_max" : 1222656,
                    "bw_agg" : 95.999518,
                    "bw_mean" : 1222656.000000,
                    "bw_dev" : 0.000000,
                    "bw_samples" : 1,
                    "iops_min" : 9552,
                    "iops_max" : 9552,
                    "iops_mean" : 9552.000000,
                    "iops_stddev" : 0.000000,
                    "iops_samples" : 1
                  },
                  "write" : {
                    "io_bytes" : 0,
                    "io_kbytes" : 0,
                    "bw_bytes" : 0,
                    "bw" : 0,
                    "iops" : 0.000000,
                    "runtime" : 0,
                    "total_ios" : 0,
                    "short_ios" : 0,
                    "drop_ios" : 0
                  },
                  "job_runtime" : 1000,
                  "usr_cpu" : 0.299501,
                  "sys_cpu" : 1.797005
                }
              ]
            }
            """;

    @Test
    void readsTheReadSectionOfARealReport() throws Exception {
        FioResult result = FioResult.parse(RANDREAD_SAMPLE, false);
        assertEquals("fio-3.33", result.fioVersion());
        assertEquals("randread-128k-qd8", result.jobName());
        assertEquals(1_305_477_120L, result.ioBytes());
        assertEquals(1001, result.runtimeMs());
        assertEquals(1_304_172_947.0, result.bandwidthBytesPerSecond());
        assertEquals(9950.04995, result.iops(), 1e-6);
        assertEquals(1_304_172_947.0 / (1 << 20), result.mibPerSecond(), 1e-9);
    }

    @Test
    void warningsBeforeTheJsonAreSkipped() throws Exception {
        String noisy = "fio: file hash not empty on exit\nnote: both iodepth >= 1 and synchronous I/O engine are selected\n"
                + RANDREAD_SAMPLE;
        assertEquals(1_305_477_120L, FioResult.parse(noisy, false).ioBytes());
    }

    @Test
    void writeSectionOfAWriteJob() throws Exception {
        String write = """
                {"fio version": "fio-3.33", "jobs": [{"jobname": "randwrite-128k-qd8", "error": 0,
                  "read": {"io_bytes": 0, "bw_bytes": 0, "iops": 0.0, "runtime": 0},
                  "write": {"io_bytes": 2097152000, "bw_bytes": 419010989, "iops": 3196.8, "runtime": 5005}}]}
                """;
        FioResult result = FioResult.parse(write, true);
        assertEquals(2_097_152_000L, result.ioBytes());
        assertEquals(5005, result.runtimeMs());
        assertEquals(419_010_989.0 / (1 << 20), result.mibPerSecond(), 1e-9);
        // The same report read as a read job moved nothing: refused, not a zero to divide by.
        FioResult.FioOutputException e = assertThrows(FioResult.FioOutputException.class, () -> FioResult.parse(write, false));
        assertTrue(e.getMessage().contains("moved 0 bytes"), e.getMessage());
    }

    private static String failure(String report, boolean write) {
        return assertThrows(FioResult.FioOutputException.class, () -> FioResult.parse(report, write)).getMessage();
    }

    @Test
    void unusableReportsAreNamedPrecisely() {
        assertEquals("fio printed no JSON report", failure("", false));
        assertEquals("fio printed no JSON report: fio: engine io_uring not loadable",
                failure("fio: engine io_uring not loadable\nfio: failed to load engine\n", false));
        assertTrue(failure("{\"jobs\": [", false).startsWith("fio's report is not valid JSON"));
        assertEquals("fio's report has no jobs (field \"jobs\" missing or empty)", failure("{\"fio version\": \"fio-3.33\"}", false));
        assertEquals("fio's report has no jobs (field \"jobs\" missing or empty)", failure("{\"jobs\": []}", false));
        assertEquals("fio job t failed with error 22 (an errno: EINVAL, e.g. O_DIRECT refused or misaligned)",
                failure("{\"jobs\": [{\"jobname\": \"t\", \"error\": 22}]}", false));
        assertEquals("fio job t has no \"read\" section", failure("{\"jobs\": [{\"jobname\": \"t\", \"error\": 0}]}", false));
        assertEquals("fio's report has no number at jobs[0].read.bw_bytes",
                failure("{\"jobs\": [{\"jobname\": \"t\", \"error\": 0, \"read\": {\"io_bytes\": 5, \"runtime\": 1}}]}", false));
        assertEquals("fio's report has no number at jobs[0].error", failure("{\"jobs\": [{\"jobname\": \"t\"}]}", false));
    }

    @Test
    void fioCommandMirrorsTheEnginesCase() {
        Fio fio = new Fio("fio");
        BenchCase randomRead = new BenchCase(BenchCase.Access.RANDOM_READ, 128 << 10, 8);
        List<String> command = fio.command(randomRead, Path.of("/data/f.bin"), 1L << 30, 5, Path.of("/out/r.json"));
        assertEquals(List.of("fio", "--name=randread-128k-qd8", "--filename=/data/f.bin", "--size=1073741824",
                "--ioengine=io_uring", "--direct=1", "--fixedbufs=1", "--rw=randread", "--bs=128k", "--iodepth=8",
                "--norandommap=1", "--time_based=1", "--runtime=5s", "--output-format=json", "--output=/out/r.json"), command);
        BenchCase sequentialWrite = new BenchCase(BenchCase.Access.SEQUENTIAL_WRITE, 1 << 20, 8);
        List<String> sequential = fio.command(sequentialWrite, Path.of("/data/f.bin"), 1L << 30, 5, Path.of("/out/w.json"));
        assertTrue(sequential.contains("--rw=write") && sequential.contains("--bs=1m") && !sequential.contains("--norandommap=1"),
                sequential.toString());
    }

    @Test
    void acceptanceCasesAreTheIssuesList() {
        assertEquals(List.of("randread-128k-qd1", "randread-128k-qd8", "randread-128k-qd32", "randwrite-128k-qd1",
                        "randwrite-128k-qd8", "randwrite-128k-qd32", "read-1m-qd8", "write-1m-qd8"),
                BenchCase.acceptanceCases().stream().map(BenchCase::name).toList());
    }
}
