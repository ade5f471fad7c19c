package tierlab.workload;

import java.nio.file.Path;
import java.util.function.Function;
import tierlab.model.Registry;

/**
 * Every trace format tierlab reads, by the name {@code tierlab replay --format} and the experiment
 * files use (docs/traces.md has each format's fields, source and license).
 */
public final class TraceFormats {

    /**
     * One format: how to read it, and whether its requests carry prompt lengths (then it can drive a
     * simulated serving engine as a workload, not only the block-level replay).
     *
     * @param description  one line for help texts
     * @param requestLevel true for request traces (prompts of tokens), false for traces of cache objects
     * @param reader       reads a whole file (the azure format with its default synthesis)
     */
    public record TraceFormat(String description, boolean requestLevel, Function<Path, RequestTrace> reader) {
        public RequestTrace read(Path file) {
            return reader.apply(file);
        }
    }

    /** The formats, in the order help texts list them; {@code mooncake} first, the default. */
    public static final Registry<TraceFormat> FORMATS = Registry.<TraceFormat>of("trace format")
            .add("mooncake", new TraceFormat("Mooncake JSONL (timestamp ms, input_length, output_length, hash_ids of 512"
                    + " tokens)", true, file -> RequestTrace.of(MooncakeTraceReader.read(file))))
            .add("qwen", new TraceFormat("Qwen-Bailian JSONL (chat_id, parent_chat_id, turn, timestamp s, hash_ids of 16"
                    + " tokens)", true, QwenTraceReader::read))
            .add("azure", new TraceFormat("Azure LLM inference CSV (TIMESTAMP, ContextTokens, GeneratedTokens; prefixes"
                    + " synthesised)", true, file -> AzureTraceReader.read(file, AzureSynthesis.DEFAULT)))
            .add("oracle-general", new TraceFormat("libCacheSim oracleGeneral binary (24-byte records, one object each)",
                    false, LibCacheSimTraces::readOracleGeneral))
            .add("lcs-csv", new TraceFormat("libCacheSim csv (clock_time,obj_id,obj_size; one object per line)", false,
                    LibCacheSimTraces::readCsv))
            .addProviders(TraceFormatProvider.class)
            .build();

    private TraceFormats() {
    }
}
