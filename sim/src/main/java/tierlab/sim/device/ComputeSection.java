package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import tierlab.model.geometry.ModelShape;
import tierlab.model.io.ComputeModel;

/**
 * A GPU's compute model as a profile writes it: its {@code kind} names an entry of
 * {@link ComputeModels}, and the other fields are that kind's parameters (a record implementing this
 * interface, read by Jackson with unknown fields refused). A GPU profile without a {@code compute}
 * section runs the {@code linear} kind over its own four terms, as every profile always did.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "kind")
public interface ComputeSection {

    /** The step-time model this section describes; {@code gpu} is the profile's GPU section (its name, its linear terms). */
    ComputeModel open(GpuProfile gpu);

    /**
     * The same section priced for {@code shape}, the run's model (an experiment's {@code model}). Kinds
     * that do not read a model shape return themselves.
     */
    default ComputeSection forModel(ModelShape shape) {
        return this;
    }
}
