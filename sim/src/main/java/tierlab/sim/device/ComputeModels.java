package tierlab.sim.device;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import tierlab.model.Registry;

/**
 * The GPU compute model kinds by the name a {@code compute.kind} field gives. A new kind is one
 * {@link ComputeSection} record (its parameters and how it prices a step) and one entry below; the
 * simulator's GPU port and the live runtime's timed step do not change.
 */
public final class ComputeModels {

    /** The kind of a GPU profile without a {@code compute} section. */
    public static final String DEFAULT = "linear";

    public static final Registry<Class<? extends ComputeSection>> KINDS =
            Registry.<Class<? extends ComputeSection>>of("compute model kind")
                    .add(DEFAULT, LinearSection.class)
                    .add("roofline", RooflineSection.class)
                    .add("table", TableSection.class)
                    .add("kernel-roofline", KernelRooflineSection.class)
                    .addProviders(ComputeModelProvider.class)
                    .build();

    private ComputeModels() {
    }

    /** The registry name of {@code section}'s kind. */
    public static String nameOf(ComputeSection section) {
        for (String name : KINDS.names()) {
            if (KINDS.get("compute.kind", name).equals(section.getClass())) {
                return name;
            }
        }
        throw new IllegalStateException(section.getClass().getName() + " is not a registered compute model kind");
    }

    /** Lets {@code mapper} read and write each kind's section under its name. */
    public static void registerWith(ObjectMapper mapper) {
        for (String name : KINDS.names()) {
            mapper.registerSubtypes(new NamedType(KINDS.get("compute.kind", name), name));
        }
    }
}
