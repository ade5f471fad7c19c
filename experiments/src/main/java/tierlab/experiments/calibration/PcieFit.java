package tierlab.experiments.calibration;

import java.util.List;
import org.apache.commons.math3.stat.regression.SimpleRegression;
import tierlab.sim.device.PcieProfile;

/**
 * Fits the simulator's PCIe model to the PCIe sweep. The model ({@code tierlab.sim.device.CopyEngine})
 * has one FIFO engine per direction on which a copy of {@code b} bytes occupies
 * {@code latency + b / bandwidth}. On one CUDA stream copies also run one after another, so the
 * time per copy of a pipelined single-stream sequence is that occupancy: a least-squares line of
 * time per copy against bytes (over every single-stream size of one direction) has the latency as
 * its intercept and 1 / bandwidth as its slope. Points with more streams are reported, not fitted:
 * the live copy port uses one stream per direction, like the model.
 */
public final class PcieFit {

    /** One direction's fit and how well the line fits (R²). */
    public record DirectionFit(double bytesPerSecond, long latencyNs, double rSquared, int points) {}

    /** Both directions. */
    public record Fit(DirectionFit hostToDevice, DirectionFit deviceToHost) {
        public PcieProfile profile() {
            return new PcieProfile(hostToDevice.bytesPerSecond(), hostToDevice.latencyNs(),
                    deviceToHost.bytesPerSecond(), deviceToHost.latencyNs());
        }
    }

    private PcieFit() {}

    public static Fit fit(List<PcieSweep.Point> points) {
        return new Fit(direction(points, PcieSweep.Direction.H2D), direction(points, PcieSweep.Direction.D2H));
    }

    /**
     * @throws IllegalArgumentException when fewer than two single-stream pinned sizes were measured in
     *                                  the direction, or the line does not slope up (no bandwidth)
     */
    static DirectionFit direction(List<PcieSweep.Point> points, PcieSweep.Direction direction) {
        SimpleRegression line = new SimpleRegression(true);
        int used = 0;
        for (PcieSweep.Point point : points) {
            if (point.direction() == direction && point.streams() == 1 && point.pinned()) {
                line.addData(point.copyBytes(), point.nsPerCopy());
                used++;
            }
        }
        if (used < 2) {
            throw new IllegalArgumentException(direction + ": the fit needs single-stream pinned points of two sizes or more, had " + used);
        }
        double slopeNsPerByte = line.getSlope();
        if (!(slopeNsPerByte > 0)) {
            throw new IllegalArgumentException(direction + ": time per copy does not grow with its size (slope "
                    + slopeNsPerByte + " ns/byte): no bandwidth to fit");
        }
        // A negative intercept is noise around a latency too small to resolve: the model takes 0, and says so.
        long latencyNs = Math.round(FitWarnings.atLeastZero("pcie." + direction + " latencyNs", line.getIntercept()));
        return new DirectionFit(1e9 / slopeNsPerByte, latencyNs, line.getRSquare(), used);
    }
}
