package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.nio.file.Path;
import tierlab.model.geometry.ModelSection;
import tierlab.model.io.ComputeModel;

/**
 * The {@code table} kind ({@link StepTable}): step times interpolated from a measured table
 * ({@link StepRows}: {@code kind,batch,new_tokens,context_tokens,ms}).
 *
 * @param table the CSV file; a relative path is relative to the profile file's folder
 * @param gpu   the GPU it was measured on (informational)
 * @param model the model it was measured with (informational: a table prices only its own model)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TableSection(String table, GpuSpec gpu, ModelSection model) implements ComputeSection {

    public TableSection {
        if (table == null || table.isBlank()) {
            throw new IllegalArgumentException("compute.table: the table kind names its CSV file (kind,batch,new_tokens,"
                    + "context_tokens,ms)");
        }
    }

    @Override
    public ComputeModel open(GpuProfile profile) {
        Path file = Path.of(table);
        return new StepTable(file.toString(), StepRows.read(file, true));
    }

    /** The same section with its table's path resolved against {@code folder} (the profile file's). */
    public TableSection relativeTo(Path folder) {
        Path file = Path.of(table);
        return file.isAbsolute() || folder == null ? this
                : new TableSection(folder.resolve(file).normalize().toString(), gpu, model);
    }
}
