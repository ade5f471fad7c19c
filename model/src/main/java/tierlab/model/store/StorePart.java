package tierlab.model.store;

import java.util.ArrayDeque;
import tierlab.model.geometry.Geometry;
import tierlab.model.io.IoOp;
import tierlab.model.l2.L2Index;
import tierlab.model.l2.L2Ring;
import tierlab.model.trace.DecisionTrace;
import tierlab.model.util.LongMap;

/**
 * A part of a {@link TieredStore}: the shared {@link StoreContext} and, copied into final fields
 * because every part reads them on its hot paths, the settings, geometry, ablation switches,
 * trace, L2 ring and index, events and in-flight work.
 */
abstract class StorePart {
    final StoreContext ctx;
    final StoreSettings settings;
    final Geometry geometry;
    final long laneBytes;
    final int tp;
    final int slotCount;
    final RaceSwitches races;
    final DecisionTrace trace;
    final L2Ring ring;
    final L2Index index;
    final ArrayDeque<StoreEvent> events;
    final LongMap<Object> inflightByTicket;

    StorePart(StoreContext ctx) {
        this.ctx = ctx;
        this.settings = ctx.settings;
        this.geometry = ctx.geometry;
        this.laneBytes = ctx.laneBytes;
        this.tp = ctx.tp;
        this.slotCount = ctx.slotCount;
        this.races = ctx.races;
        this.trace = ctx.trace;
        this.ring = ctx.ring;
        this.index = ctx.index;
        this.events = ctx.events;
        this.inflightByTicket = ctx.inflightByTicket;
    }

    final void count(StoreCounter counter, long delta) {
        ctx.count(counter, delta);
    }

    final void emit(IoOp op) {
        ctx.emit(op);
    }

    final void pump() {
        ctx.pump();
    }

    final int unitIndex(long unit) {
        return ctx.unitIndex(unit);
    }

    final long unitOffset(int slot, int lane) {
        return ctx.unitOffset(slot, lane);
    }

    final int slotOf(long unit) {
        return ctx.slotOf(unit);
    }
}
