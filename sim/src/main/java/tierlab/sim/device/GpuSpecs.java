package tierlab.sim.device;

import tierlab.model.Registry;

/**
 * The GPUs a profile can name, with the vendors' published peak rates (docs/compute.md gives the
 * sources). A profile's {@code gpu.name} looks its rates up here unless the profile states its own.
 */
public final class GpuSpecs {

    /** NVIDIA H100 SXM: 989 TFLOP/s dense bf16, 3.35 TB/s HBM3, 80 GB. */
    public static final GpuSpec H100 = new GpuSpec("h100", 989e12, 3.35e12, 80e9);

    /** NVIDIA H200 SXM: the H100's compute with 4.8 TB/s HBM3e and 141 GB. */
    public static final GpuSpec H200 = new GpuSpec("h200", 989e12, 4.8e12, 141e9);

    public static final Registry<GpuSpec> GPUS = Registry.<GpuSpec>of("gpu")
            .add(H100.name(), H100)
            .add(H200.name(), H200)
            .build();

    private GpuSpecs() {
    }

    /** The GPU named {@code name}; {@code field} names the setting in the message of an unknown one. */
    public static GpuSpec get(String field, String name) {
        return GPUS.get(field, name);
    }
}
