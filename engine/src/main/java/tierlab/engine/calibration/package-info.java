/**
 * The live half of experiment E5 (calibration): {@link tierlab.engine.calibration.CalibrationSweep}
 * measures IOPS, throughput, latency percentiles and io_uring_enter calls over access patterns ×
 * block sizes × queue depths on a real O_DIRECT file, as {@link tierlab.engine.calibration.MeasuredPoint}
 * records. Fitting the simulator's NVMe model to them is {@code tierlab.sim.device.NvmeFit}'s job;
 * files and charts are written by {@code tierlab.experiments.calibration}.
 */
package tierlab.engine.calibration;
