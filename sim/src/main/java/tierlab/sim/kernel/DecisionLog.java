package tierlab.sim.kernel;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.function.LongSupplier;
import tierlab.model.trace.DecisionTrace;

/**
 * The optional event log: every decision the model makes, one JSON object per line, stamped with
 * the virtual time: {@code {"t":1200000,"kind":"lookup","v":[7,2,0,12,0]}}. Pass it as the
 * listener of the run's {@link DecisionTrace}; the trace's hash stays the same with or without it.
 */
public final class DecisionLog implements DecisionTrace.DecisionListener, AutoCloseable {
    private final JsonGenerator json;
    private final LongSupplier nowNs;
    private long lines;

    public DecisionLog(Writer out, LongSupplier nowNs) {
        try {
            this.json = new JsonFactory().createGenerator(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the decision log", e);
        }
        this.nowNs = nowNs;
    }

    @Override
    public void onDecision(String kind, long[] values) {
        try {
            json.writeStartObject();
            json.writeNumberField("t", nowNs.getAsLong());
            json.writeStringField("kind", kind);
            json.writeArrayFieldStart("v");
            for (long value : values) {
                json.writeNumber(value);
            }
            json.writeEndArray();
            json.writeEndObject();
            json.writeRaw('\n');
            lines++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the decision log", e);
        }
    }

    public long lines() {
        return lines;
    }

    @Override
    public void close() {
        try {
            json.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the decision log", e);
        }
    }
}
