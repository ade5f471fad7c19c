package tierlab.sim.device;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import java.util.function.ToLongFunction;
import tierlab.model.Registry;
import tierlab.model.io.CompletionTimeline;

/**
 * The simulator's storage device models by the name a profile's {@code storage.model} gives. The
 * runtime opens its storage port here, so a new device model is one {@link StorageDevice}, one
 * {@link StorageSection} record and one entry below; the runtime does not change.
 */
public final class StorageModels {

    /** The model of a profile without a {@code storage} section. */
    public static final String DEFAULT = "nvme";

    /**
     * The channel-queue NVMe drive ({@link NvmeModel}) behind the host's submitting thread. Its
     * parameters stay in the profile's {@code nvme} section, where every preset and fitted profile has them.
     */
    public record Nvme() implements StorageSection {
        @Override
        public StorageDevice open(DeviceProfile profile, long seed) {
            return new NvmeModel(profile.nvme(), seed);
        }

        @Override
        public boolean readsNvmeSection() {
            return true;
        }
    }

    /** Every model: its name in profile files, and the section record its parameters are read into. */
    public static final Registry<Class<? extends StorageSection>> MODELS =
            Registry.<Class<? extends StorageSection>>of("storage model")
                    .add(DEFAULT, Nvme.class)
                    .add("link", LinkProfile.class)
                    .addProviders(StorageModelProvider.class)
                    .build();

    private StorageModels() {
    }

    /** The registry name of {@code section}'s model. */
    public static String nameOf(StorageSection section) {
        for (String name : MODELS.names()) {
            if (MODELS.get("storage.model", name).equals(section.getClass())) {
                return name;
            }
        }
        throw new IllegalStateException(section.getClass().getName() + " is not a registered storage model");
    }

    /** Lets {@code mapper} read and write each model's section under its name. */
    static void registerWith(ObjectMapper mapper) {
        for (String name : MODELS.names()) {
            mapper.registerSubtypes(new NamedType(MODELS.get("storage.model", name), name));
        }
    }

    /**
     * The storage port of a simulated host with {@code profile}'s devices: the model its storage
     * section names, seeded with {@code seedOf} applied to the model's name, behind the host's
     * submitting thread, completing on {@code timeline}.
     */
    public static SimStoragePort open(DeviceProfile profile, ToLongFunction<String> seedOf, CompletionTimeline timeline) {
        StorageSection section = profile.storageSection();
        String name = nameOf(section);
        return new SimStoragePort(name, section.open(profile, seedOf.applyAsLong(name)),
                new HostSubmitter(profile.host()), timeline);
    }

    /** The device model {@code profile}'s storage section names, seeded as {@link #open} seeds it: one host's drive. */
    public static StorageDevice device(DeviceProfile profile, ToLongFunction<String> seedOf) {
        StorageSection section = profile.storageSection();
        return section.open(profile, seedOf.applyAsLong(nameOf(section)));
    }

    /**
     * The storage port of one more process on a host whose device is {@code device} (opened once for
     * the host): its own submitting thread, completing on its own {@code timeline}.
     */
    public static SimStoragePort openOn(DeviceProfile profile, StorageDevice device, CompletionTimeline timeline) {
        return new SimStoragePort(nameOf(profile.storageSection()), device, new HostSubmitter(profile.host()), timeline);
    }
}
