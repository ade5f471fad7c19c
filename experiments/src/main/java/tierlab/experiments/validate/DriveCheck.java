package tierlab.experiments.validate;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import tierlab.experiments.calibration.DriveReplay;
import tierlab.sim.device.DeviceProfile;

/**
 * One workload's drive, measured at its own conditions right before its live runs and again right
 * after them ({@link DriveReplay}): the two replays' rates, the host profile capped by each, and how
 * far the drive moved in between. The simulation the report scores runs on the before-profile; a
 * second one on the after-profile shows what the drive's movement alone does to each metric.
 */
record DriveCheck(DriveReplay.Recording recording, DriveReplay.Rates before, DriveReplay.Rates after, DeviceProfile beforeProfile,
                  DeviceProfile afterProfile) {

    /** Replays {@code recording} onto a fresh file in {@code scratch} of the workload's L2 size. */
    static DriveReplay.Rates measure(DriveReplay.Recording recording, Path scratch, String workload, String phase, long l2Bytes)
            throws IOException {
        return DriveReplay.replay(recording, scratch.resolve("drive-replay-" + workload + "-" + phase + ".l2"), l2Bytes);
    }

    /** The host profile with its NVMe ceilings set from {@code rates} where the replay timed them. */
    static DeviceProfile capped(DeviceProfile host, DriveReplay.Rates rates) {
        return host.withNvme(DriveReplay.cap(host.nvme(), rates));
    }

    static DriveCheck of(DriveReplay.Recording recording, DeviceProfile host, DriveReplay.Rates before, DriveReplay.Rates after) {
        return new DriveCheck(recording, before, after, capped(host, before), capped(host, after));
    }

    /** after / before − 1 of the write rate; NaN where either replay did not time the writes. */
    double writeMoved() {
        return before.writesTimed() && after.writesTimed() ? after.writeBytesPerSecond() / before.writeBytesPerSecond() - 1 : Double.NaN;
    }

    /** after / before − 1 of the read rate; NaN where either replay did not time the reads. */
    double readMoved() {
        return before.readsTimed() && after.readsTimed() ? after.readBytesPerSecond() / before.readBytesPerSecond() - 1 : Double.NaN;
    }

    /** One line for the report. */
    String describe() {
        return String.format(Locale.ROOT, "before the live runs: %s; after them: %s; the drive moved %s in writes, %s in reads",
                before.describe(), after.describe(), ValidationReport.pct(writeMoved()), ValidationReport.pct(readMoved()));
    }
}
