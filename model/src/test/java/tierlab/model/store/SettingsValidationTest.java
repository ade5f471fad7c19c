package tierlab.model.store;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.serving.SchedulerSettings;
import tierlab.model.testkit.Rejections;
import tierlab.model.testkit.TinyModel;
import tierlab.model.trace.DecisionTrace;

/** Bad settings fail at construction with a message that names the setting. */
class SettingsValidationTest {
    static final Geometry G = TinyModel.geometry(1);
    static final long B = TinyModel.BLOCK_BYTES;

    static void failsNaming(String setting, Executable construction) {
        Rejections.assertRejectedNaming(setting, construction);
    }

    static StoreSettings with(long l1, long l2, String policy, int mru, double headroom, int rings, long writeBatch, int staging) {
        return StoreSettings.builder(G, l1, l2).policy(policy).policyParameter("mruInterval", mru).headroomFraction(headroom)
                .ringCount(rings).writeBatchMaxBytes(writeBatch).stagingSlots(staging).build();
    }

    @Test
    void storeSettings() {
        failsNaming("l1CapacityBytes", () -> with(-4096, 64 * B, "lru", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("l1CapacityBytes", () -> with(0, 64 * B, "lru", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("l1CapacityBytes", () -> with(10 * B + 100, 64 * B, "lru", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("l1CapacityBytes", () -> with(4096, 64 * B, "lru", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("l2CapacityBytes", () -> with(8 * B, -1, "lru", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("l2CapacityBytes", () -> with(8 * B, B / 2, "lru", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("policy", () -> with(8 * B, 64 * B, "mru-but-better", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("policy", () -> with(8 * B, 64 * B, "", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("belady", () -> with(8 * B, 64 * B, "belady", 32, 0.05, 8, 1 << 20, 4));
        failsNaming("mruInterval", () -> with(8 * B, 64 * B, "bip", 0, 0.05, 8, 1 << 20, 4));
        failsNaming("headroomFraction", () -> with(8 * B, 64 * B, "lru", 32, -0.1, 8, 1 << 20, 4));
        failsNaming("headroomFraction", () -> with(8 * B, 64 * B, "lru", 32, 1.0, 8, 1 << 20, 4));
        failsNaming("headroomFraction", () -> with(8 * B, 64 * B, "lru", 32, Double.NaN, 8, 1 << 20, 4));
        failsNaming("ringCount", () -> with(8 * B, 64 * B, "lru", 32, 0.05, 0, 1 << 20, 4));
        failsNaming("writeBatchMaxBytes", () -> with(8 * B, 64 * B, "lru", 32, 0.05, 8, 1000, 4));
        failsNaming("stagingSlots", () -> with(8 * B, 64 * B, "lru", 32, 0.05, 8, 1 << 20, 0));
        failsNaming("geometry", () -> StoreSettings.builder(null, 8 * B, 64 * B).build());
    }

    @Test
    void blockSizesThatAreNotPageMultiplesAreRefused() {
        failsNaming("blockTokens", () -> new Geometry(new tierlab.model.geometry.ModelShape("odd", 1, 1, 1, 2), 16, 1));
        failsNaming("blockTokens", () -> new Geometry(tierlab.model.geometry.ModelShape.QWEN3_8B, 0, 1));
        failsNaming("tp", () -> new Geometry(tierlab.model.geometry.ModelShape.QWEN3_8B, 16, 0));
    }

    @Test
    void schedulerSettingsAndRequests() {
        failsNaming("maxNumSeqs", () -> SchedulerSettings.builder(100).maxNumSeqs(0).build());
        failsNaming("maxBatchedTokens", () -> SchedulerSettings.builder(100).maxNumSeqs(8).maxBatchedTokens(-1)
                .build());
        failsNaming("gpuKvBlocks", () -> SchedulerSettings.builder(0).maxNumSeqs(8).build());
        failsNaming("prefetchMaxRequests", () -> SchedulerSettings.builder(100).maxNumSeqs(8).prefetchMaxRequests(-1)
                .build());
        failsNaming("promptTokens", () -> new RequestSpec(1, 0, 0, 1, List.of()));
        failsNaming("outputTokens", () -> new RequestSpec(1, 0, 10, 0, List.of()));
    }

    @Test
    void aSnapshotOfAnotherGeometryIsRefusedNamingTheMismatch() {
        StoreSettings small = TinyModel.store(8, 64);
        StoreSettings other = TinyModel.store(8, 32);
        TieredStore store = new TieredStore(small);
        failsNaming("snapshot", () -> TieredStore.restore(other, store.snapshot(), new DecisionTrace()));
    }
}
