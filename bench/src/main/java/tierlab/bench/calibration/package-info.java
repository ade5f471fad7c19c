/**
 * Experiment E5 (calibration) without its files and charts: measure a real device, fit the
 * simulator's NVMe model to it, and predict each measured point with the fitted model.
 *
 * <ul>
 *   <li>{@link tierlab.bench.calibration.CalibrationSweep} measures IOPS, throughput, latency
 *       percentiles and io_uring_enter calls over access patterns × block sizes × queue depths on a
 *       real O_DIRECT file, as {@link tierlab.bench.calibration.MeasuredPoint} records;</li>
 *   <li>{@link tierlab.bench.calibration.NvmeFit} fits {@link tierlab.sim.device.NvmeProfile}'s
 *       parameters to those points;</li>
 *   <li>{@link tierlab.bench.calibration.NvmeClosedLoop} runs {@link tierlab.sim.device.NvmeModel}
 *       in the same closed loop as the sweep, so model and measurement compare point by point;</li>
 *   <li>{@link tierlab.bench.calibration.FittedProfiles} writes the fitted profile as a file.</li>
 * </ul>
 *
 * <p>The files and charts of a calibration run are written by {@code tierlab.experiments.calibration}.
 */
package tierlab.bench.calibration;
