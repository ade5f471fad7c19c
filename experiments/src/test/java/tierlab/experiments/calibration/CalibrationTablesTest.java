package tierlab.experiments.calibration;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;
import tierlab.bench.BenchCase;

/** The points and runs tables of a calibration, from fixed measurements, byte for byte as the charts and readers parse them. */
class CalibrationTablesTest {

    private static final List<MeasuredPoint> RUNS = List.of(
            new MeasuredPoint(new BenchCase(BenchCase.Access.RANDOM_READ, 4096, 1), 0, 1_000, 4_096_000, 50_000_000, 20_000,
                    81_920_000, 48_000, 45_000, 90_000, 1_000),
            new MeasuredPoint(new BenchCase(BenchCase.Access.SEQUENTIAL_WRITE, 2 << 20, 4), 1, 300, 629_145_600L, 300_000_000,
                    1_000, 2_097_152_000, 4_000_000, 3_900_000, 6_500_000, 75));

    @Test
    void pointsAndRunsAreWrittenAsTheChartsReadThem() {
        List<CalibrationPoint> points = List.of(
                new CalibrationPoint(RUNS.get(0), 3, new NvmeClosedLoop.Prediction(21_000, 86_016_000, 46_000, 44_000, 95_000)),
                new CalibrationPoint(RUNS.get(1), 2, new NvmeClosedLoop.Prediction(900, 1_887_436_800, 4_400_000, 4_300_000,
                        7_000_000)));
        assertEquals("""
                access,block_bytes,queue_depth,repeats,measured_iops,measured_mb_s,measured_latency_mean_us,measured_latency_p50_us,measured_latency_p99_us,io_uring_enter_per_op,model_iops,model_mb_s,model_latency_mean_us,model_latency_p99_us,throughput_relative_error,latency_relative_error
                randread,4096,1,3,20000.0,81.92,48.0,45.0,90.0,1.0,21000.0,86.016,46.0,95.0,0.05,0.041666666666666664
                write,2097152,4,2,1000.0,2097.152,4000.0,3900.0,6500.0,0.25,900.0,1887.4368,4400.0,7000.0,0.1,0.1
                """, csv(CalibrationFiles.pointsTable(points)));
        assertEquals("""
                access,block_bytes,queue_depth,repeat,order,ops,elapsed_s,iops,mb_s,latency_mean_us,latency_p50_us,latency_p99_us,io_uring_enter_calls
                randread,4096,1,0,0,1000,0.05,20000.0,81.92,48.0,45.0,90.0,1000
                write,2097152,4,1,1,300,0.3,1000.0,2097.152,4000.0,3900.0,6500.0,75
                """, csv(CalibrationFiles.runsTable(RUNS)));
    }

    private static String csv(Table table) {
        StringWriter out = new StringWriter();
        table.write().csv(out);
        return out.toString();
    }
}
