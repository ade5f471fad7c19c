package tierlab.experiments.run;

import tierlab.model.Registry;

/**
 * How a run executes the model: the modes an experiment file's {@code mode} may name. The loader
 * reads what a mode implies from here instead of comparing names.
 *
 * @param name         the file's spelling
 * @param realStorage  the run pins a real L1 and writes a real L2 file (so their sizes are capped,
 *                     and an L1 sized to the whole workload is out of reach)
 * @param virtualClock time is simulated, so a closed-loop client can be scheduled against it
 * @param persistentL2 the run may name a persistent L2 file ({@code store.l2File}) to start warm from
 *                     and keep (the run's store is opened through WarmStart over that file)
 * @param doc          one line for the catalogue
 */
public record RunMode(String name, boolean realStorage, boolean virtualClock, boolean persistentL2, String doc) {

    public static final RunMode SIM = new RunMode("sim", false, true, false, "virtual clock, device models");
    public static final RunMode HYBRID = new RunMode("hybrid", true, true, false,
            "virtual clock, real io_uring bytes; the simulator orders completions");
    public static final RunMode LIVE = new RunMode("live", true, false, true, "wall clock, real io_uring bytes");

    public static final Registry<RunMode> REGISTRY = Registry.<RunMode>of("mode")
            .add(SIM.name, SIM)
            .add(HYBRID.name, HYBRID)
            .add(LIVE.name, LIVE)
            .addProviders(RunModeProvider.class)
            .build();
}
