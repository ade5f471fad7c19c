package tierlab.experiments.validate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tierlab.model.testkit.TestDirectories;
import tierlab.experiments.calibration.DriveReplay;
import tierlab.metrics.PassMetrics;

/**
 * The four tables of a validate output, written from one fixed workload result, byte for byte: their
 * columns, order, types and number formats are what readers (tierlab accuracy, the notebooks) parse.
 */
class ValidationTablesTest {

    private static Observation observation(String mode, int repeat, long writes, long waits) {
        return new Observation(mode, repeat, List.of(new PassMetrics("cold", new double[tierlab.metrics.PassMetric.values().length])), Map.of(1L, 5_000_000L),
                Map.of(), 12, Map.of("op-write", writes, "store-wait-space", waits), List.of(), 1_500_000_000L, 0, 0, null,
                "h", "io_uring", "host buffers: test", 24);
    }

    static ValidationReport.WorkloadResult result() {
        List<Observation> live = List.of(observation("live", 0, 931, 170), observation("live", 1, 1_001, 180),
                observation("live", 2, 950, 175));
        Observation sim = observation("sim", 0, 1_233, 786);
        DriveReplay.Rates before = new DriveReplay.Rates(5_400_000_000L, 2_600, 2.16, 2_700_000_000L, 1_300, 1.2, 8L << 30, "io_uring");
        DriveReplay.Rates after = new DriveReplay.Rates(5_400_000_000L, 2_600, 1.9, 2_700_000_000L, 1_300, 1.0, 8L << 30, "io_uring");
        DriveCheck drive = new DriveCheck(null, before, after, null, null);
        List<Comparison.Row> rows = List.of(
                new Comparison.Row("e1", "cold", "elapsedS", "s", 2.0, 1.9, 2.2, 0.15, 2.3, 0.15, 2.1, 0.05),
                new Comparison.Row("e1", "cold", "ttftP50Ms", "ms", 100, 95, 110, 0.15, 104, 0.04, Double.NaN, Double.NaN));
        Comparison.Decisions decisions = new Comparison.Decisions(12, 11, false, "request 7: L2 against L1", 2, 12, 12,
                "op-write 1233/931");
        return new ValidationReport.WorkloadResult("e1", ValidationFile.HELD_OUT, live, sim, null, drive, null, rows, decisions,
                131_072, 90_000);
    }

    @Test
    void theTablesAreWrittenAsReadersParseThem() throws IOException {
        Path folder = TestDirectories.underTarget("validation-tables");
        ValidationReport.writeTables(folder, List.of(result()));
        assertEquals("""
                workload,role,pass,metric,unit,liveMedian,liveMin,liveMax,liveSpread,sim,relativeError,simDriveAfter,relativeErrorDriveAfter,verdict
                e1,held-out,cold,elapsedS,s,2.0,1.9,2.2,0.15,2.3,0.15,2.1,0.05,drive-moved
                e1,held-out,cold,ttftP50Ms,ms,100.0,95.0,110.0,0.15,104.0,0.04,,,within
                """, read(folder, ValidationReport.CSV));
        assertEquals("""
                workload,requests,identical,sameOrder,liveRunsIdenticalToSim,simLookupCalls,liveLookupCalls,firstDivergence,decisionCountsSimLive
                e1,12.0,11.0,false,2.0,12.0,12.0,request 7: L2 against L1,op-write 1233/931
                """, read(folder, ValidationReport.DECISIONS_CSV));
        assertEquals("""
                workload,kind,sim,liveMedian,liveMin,liveMax,relativeError
                e1,op-write,1233.0,950.0,931.0,1001.0,0.29789473684210527
                e1,store-wait-space,786.0,175.0,170.0,180.0,3.4914285714285715
                """, read(folder, ValidationReport.DECISION_KINDS_CSV));
        assertEquals("""
                workload,replay,writeBytes,writeOps,writeSeconds,writeBytesPerSecond,readBytes,readOps,readSeconds,readBytesPerSecond,fileBytes,backend
                e1,before,5.4E9,2600.0,2.16,2.5E9,2.7E9,1300.0,1.2,2.25E9,8.589934592E9,io_uring
                e1,after,5.4E9,2600.0,1.9,2.842105263157895E9,2.7E9,1300.0,1.0,2.7E9,8.589934592E9,io_uring
                """, read(folder, ValidationReport.DRIVE_CSV));
    }

    private static String read(Path folder, String name) throws IOException {
        return Files.readString(folder.resolve(name));
    }
}
