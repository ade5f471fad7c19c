package tierlab.engine.cuda;

import java.util.Optional;

/**
 * The CUDA device a live run or the PCIe benchmark uses, or the one-line reason there is none:
 * no libcudart, a library that does not load, no driver, no device. Looking costs one
 * {@code cudaGetDeviceCount}; nothing is allocated.
 *
 * @param api         the runtime, when a device is usable
 * @param device      the device's ordinal (0: tierlab uses one GPU)
 * @param description "NVIDIA H200 (device 0 of 1, PCI 0000:3b:00.0, 139.8 GiB, driver 13.0, runtime 13.0, libcudart …)"
 *                    or the reason there is no device
 */
public record CudaDevice(Optional<CudaApi> api, int device, String description) {

    /** The ordinal used: the first device, or {@code tierlab.cuda.device}. */
    public static final String DEVICE_PROPERTY = "tierlab.cuda.device";

    public boolean available() {
        return api.isPresent();
    }

    /** Looks on this host. */
    public static CudaDevice probe() {
        CudaLibrary.Lookup lookup = CudaLibrary.find();
        if (lookup.library().isEmpty()) {
            return none(lookup.reason());
        }
        CudaRuntime runtime;
        try {
            runtime = CudaRuntime.load(lookup.library().get());
        } catch (RuntimeException e) {
            return none(e.getMessage());
        }
        return probe(runtime, Integer.getInteger(DEVICE_PROPERTY, 0), runtime.library().toString());
    }

    /** Looks through {@code api} (a loaded runtime, or a fake). */
    public static CudaDevice probe(CudaApi api, int device, String libraryName) {
        try {
            int count = api.deviceCount();
            if (count <= device) {
                return none("CUDA device " + device + " requested but " + count + " present (" + libraryName + ")");
            }
            api.setDevice(device);
            long[] memory = api.memoryInfo();
            String description = api.deviceName(device) + " (device " + device + " of " + count + ", PCI "
                    + api.pciBusId(device) + ", " + String.format("%.1f GiB", memory[1] / (double) (1L << 30))
                    + ", driver " + version(api.driverVersion()) + ", runtime " + version(api.runtimeVersion())
                    + ", " + libraryName + ")";
            return new CudaDevice(Optional.of(api), device, description);
        } catch (CudaException e) {
            String driver = "";
            try {
                int version = api.driverVersion();
                driver = version == 0 ? ", no CUDA driver" : ", driver " + version(version);
            } catch (CudaException ignored) {
                // The reason above is the one that matters.
            }
            return none(e.getMessage() + driver + ", " + libraryName);
        }
    }

    /** 13000 → "13.0", 12080 → "12.8" (CUDA's 1000 × major + 10 × minor). */
    static String version(int encoded) {
        return (encoded / 1000) + "." + (encoded % 1000) / 10;
    }

    private static CudaDevice none(String reason) {
        return new CudaDevice(Optional.empty(), -1, reason);
    }
}
