package tierlab.experiments;

import java.io.IOException;
import java.nio.file.Path;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The miss-ratio curves as a Tablesaw table: one row per policy and capacity. */
public final class MissRatioTable {

    /** The CSV columns, in order. */
    public static final String[] COLUMNS = {
        "policy", "capacity_blocks", "references", "hits", "misses", "hit_ratio", "miss_ratio"};

    private MissRatioTable() {
    }

    public static Table of(MissRatioCurves curves) {
        StringColumn policy = StringColumn.create(COLUMNS[0]);
        LongColumn capacityBlocks = LongColumn.create(COLUMNS[1]);
        LongColumn references = LongColumn.create(COLUMNS[2]);
        LongColumn hits = LongColumn.create(COLUMNS[3]);
        LongColumn misses = LongColumn.create(COLUMNS[4]);
        DoubleColumn hitRatio = DoubleColumn.create(COLUMNS[5]);
        DoubleColumn missRatio = DoubleColumn.create(COLUMNS[6]);
        for (MissRatioPoint point : curves.points()) {
            policy.append(point.policy());
            capacityBlocks.append(point.capacityBlocks());
            references.append(point.result().references());
            hits.append(point.result().hits());
            misses.append(point.result().misses());
            hitRatio.append(point.hitRatio());
            missRatio.append(point.missRatio());
        }
        return Table.create("miss-ratio", policy, capacityBlocks, references, hits, misses, hitRatio, missRatio);
    }

    public static void writeCsv(MissRatioCurves curves, Path file) throws IOException {
        CsvFiles.write(of(curves), file);
    }
}
