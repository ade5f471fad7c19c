/**
 * Workloads: what arrives at the simulated serving engine, as {@link tierlab.model.request.RequestSpec}
 * lists sorted by arrival with unique, stable request ids.
 *
 * <ul>
 *   <li>{@link tierlab.workload.MooncakeTraceReader} reads a Mooncake JSONL trace and
 *       {@link tierlab.workload.MooncakeWorkload} re-blocks it to the model's block size;</li>
 *   <li>{@link tierlab.workload.TraceFormats} names every trace format tierlab reads (docs/traces.md):
 *       the Qwen-Bailian JSONL ({@link tierlab.workload.QwenTraceReader}), the Azure LLM inference
 *       CSV ({@link tierlab.workload.AzureTraceReader}, prompts given block ids by the seeded
 *       {@link tierlab.workload.AzureSynthesis}) and libCacheSim's block formats
 *       ({@link tierlab.workload.LibCacheSimTraces}) besides Mooncake's, each read into a
 *       {@link tierlab.workload.RequestTrace}; {@link tierlab.workload.TraceWorkload}
 *       re-blocks a request trace to the model's block size;</li>
 *   <li>{@link tierlab.workload.SyntheticWorkload} generates Poisson or bursty arrivals with
 *       Zipf-shared prefixes and multi-turn sessions;</li>
 *   <li>{@link tierlab.workload.LongPrefillPasses} is the reference benchmarks' cold pass then
 *       warm pass of the same long prompts (E1–E3 in docs/experiments.md).</li>
 * </ul>
 *
 * <p>Every random choice comes from a named stream of a {@link tierlab.model.util.SeedTree}, one
 * stream per kind of choice, so the same seed gives the same list and changing one setting (say,
 * the output length) does not shift the draws of another (the arrival times).
 */
package tierlab.workload;
