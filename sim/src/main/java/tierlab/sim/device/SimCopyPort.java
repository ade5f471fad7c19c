package tierlab.sim.device;

import tierlab.model.io.CompletionTimeline;
import tierlab.model.io.CopyPort;
import tierlab.model.io.IoOp;
import tierlab.model.io.LayerGroupLoads;
import tierlab.model.io.OpSink;

/**
 * The simulator's host↔GPU copy port: one {@link CopyEngine} per PCIe direction, completions on the
 * virtual clock. Each copy call first passes the {@link HostThread} (its host-side cost, 0 in every
 * preset), then the link.
 */
public final class SimCopyPort implements CopyPort {
    private final CopyEngine hostToDevice;
    private final CopyEngine deviceToHost;
    private final CompletionTimeline timeline;
    private final HostThread hostThread;
    /** Null: every load is one copy (loadLayerGroups = 1, the default). */
    private LayerGroupLoads layerGroups;

    /** Copies that cost the host nothing. */
    public SimCopyPort(CopyEngine hostToDevice, CopyEngine deviceToHost, CompletionTimeline timeline) {
        this(hostToDevice, deviceToHost, timeline, new HostThread(new HostProfile(0, 0)));
    }

    public SimCopyPort(CopyEngine hostToDevice, CopyEngine deviceToHost, CompletionTimeline timeline, HostThread hostThread) {
        this.hostToDevice = hostToDevice;
        this.deviceToHost = deviceToHost;
        this.timeline = timeline;
        this.hostThread = hostThread;
    }

    /** Splits every load into the layer groups of {@code loads}, which the compute port reads (null: whole loads). */
    public void setLayerGroups(LayerGroupLoads loads) {
        this.layerGroups = loads;
    }

    @Override
    public void toGpu(IoOp.CopyToGpu copy, OpSink sink) {
        if (hostThread.copiesPerSegment()) {
            toGpuPerSegment(copy, sink);
            return;
        }
        long issuedNs = hostThread.copy(copy.totalBytes(), timeline.nowNs(), true);
        if (layerGroups == null) {
            timeline.completeAt(copy, hostToDevice.submit(copy.totalBytes(), issuedNs), sink);
            return;
        }
        // One copy per layer group, queued back to back on the engine; the load completes with its last.
        long landedNs = issuedNs;
        for (int group = 0; group < layerGroups.groups(); group++) {
            landedNs = hostToDevice.submit(layerGroups.groupBytes(copy.totalBytes(), group), issuedNs);
            layerGroups.landed(group, landedNs);
        }
        timeline.completeAt(copy, landedNs, sink);
    }

    /**
     * A load as tierlab's CUDA copy port issues it: per layer group (one without layer-wise loading) the
     * enqueue of one copy per segment, which the fitted costs price per call and per byte of the whole
     * load, then on the link one copy per segment, each with the link's per-copy latency.
     */
    private void toGpuPerSegment(IoOp.CopyToGpu copy, OpSink sink) {
        int groups = layerGroups == null ? 1 : layerGroups.groups();
        long landedNs = timeline.nowNs();
        for (int group = 0; group < groups; group++) {
            long issuedNs = hostThread.copy(copy.totalBytes(), timeline.nowNs(), true);
            for (IoOp.GpuLoadSegment segment : copy.segments()) {
                long bytes = layerGroups == null ? segment.lengthBytes() : layerGroups.groupBytes(segment.lengthBytes(), group);
                landedNs = hostToDevice.submit(bytes, issuedNs);
            }
            if (layerGroups != null) {
                layerGroups.landed(group, landedNs);
            }
        }
        timeline.completeAt(copy, landedNs, sink);
    }

    @Override
    public void fromGpu(IoOp.CopyFromGpu copy, OpSink sink) {
        timeline.completeAt(copy, deviceToHost.submit(copy.totalBytes(), hostThread.copy(copy.totalBytes(), timeline.nowNs(), false)), sink);
    }

    public CopyEngine hostToDevice() { return hostToDevice; }
    public CopyEngine deviceToHost() { return deviceToHost; }
}
