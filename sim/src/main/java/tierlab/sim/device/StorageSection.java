package tierlab.sim.device;

import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * A device profile's {@code storage} section: its {@code model} field names an entry of
 * {@link StorageModels}, and the other fields are that model's parameters (a record implementing
 * this interface, read by Jackson with unknown fields refused). A profile without the section runs
 * the {@code nvme} model over its {@code nvme} section.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "model")
public interface StorageSection {

    /** The device this section describes; {@code profile} is the whole profile, {@code seed} the model's own. */
    StorageDevice open(DeviceProfile profile, long seed);

    /** Whether the model reads the profile's {@code nvme} section, which the profile then must have. */
    default boolean readsNvmeSection() {
        return false;
    }
}
