package tierlab.metrics;

/** One point of a run's time series: L1 occupancy, queue depths and engine load at a virtual instant. */
public record Sample(long atNs, long l1UsedBytes, long leasedBytes, int storeQueueDepth, int running, int waiting,
                     int prefetching, int inflightOps) {}
