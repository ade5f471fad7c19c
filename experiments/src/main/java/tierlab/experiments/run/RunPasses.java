package tierlab.experiments.run;

import java.util.List;
import tierlab.model.request.RequestSpec;

/**
 * The requests of each pass of one run, generated from its seed ({@link PassGenerator}).
 *
 * @param names             the passes' names ({@code cold}, {@code warm}; {@code all})
 * @param requests          each pass's requests, in the order {@code names} gives
 * @param warmGapNs         sim and hybrid: the idle time between one pass's end and the next one's start
 * @param clientConcurrency a closed-loop client with this many requests outstanding; 0 sends at the arrival times
 */
public record RunPasses(List<String> names, List<List<RequestSpec>> requests, long warmGapNs, int clientConcurrency) {}
