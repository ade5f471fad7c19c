package tierlab.hunt;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tierlab.engine.persist.CallerPaths;
import tierlab.model.KnownBug;

/**
 * {@code tierlab hunt}: the deep profile of the race and invariant hunt. It keeps generating
 * schedules (round after round: the swarm profiles at store and engine level, then each race's
 * targeted profile, one seed per round) until the time is up, shrinks every failure and writes it
 * as a replay file. The wall clock is read here only for the deadline and the progress rate.
 *
 * <p>Exit codes: 0 no new failure (or, with {@code --replay}, the replay passes now); 1 failures
 * found (or the replay still fails); 2 bad arguments or an unreadable replay file.
 */
@Command(name = "hunt", mixinStandardHelpOptions = true,
        description = "Hunt races and invariant violations with generated schedules until the time runs out; "
                + "failures are shrunk and written as replayable files.")
public final class HuntCommand implements Callable<Integer> {

    /** Schedules per round: one QuickTheories run with one seed and one profile. */
    static final int EXAMPLES_PER_ROUND = 250;
    static final long PROGRESS_INTERVAL_NS = 10_000_000_000L;
    static final int MAX_REPLAY_FILES = 100;
    /**
     * The longest hunt, a week: {@code --minutes Infinity} (or 1e300) used to overflow the deadline
     * into the past and exit 0 after 0 schedules, a false pass.
     */
    static final double MAX_MINUTES = 7 * 24 * 60;

    @Spec
    CommandSpec spec;

    @Option(names = "--minutes", defaultValue = "30",
            description = "How long to hunt, more than 0 and at most 10080 (a week) (default: ${DEFAULT-VALUE}).")
    double minutes;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the first round; round k uses seed + k (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--out", defaultValue = "out/hunt", description = "Where failures are written (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--replay", description = "Re-run a saved failure file and report what it does now.")
    Path replay;

    @Option(names = "--ablate", split = ",", description = "Hunt with race fixes switched off, e.g. R1 or R4,R8.")
    List<String> ablate = new ArrayList<>();

    @Option(names = "--policies", defaultValue = "pinned", paramLabel = "pinned|all|NAMES",
            description = "The store policies schedules draw from: pinned (the registry's first six online policies, which"
                    + " the seeds were pinned with), all (every online policy of the registry) or comma-separated names"
                    + " (default: ${DEFAULT-VALUE}).")
    String policies;

    private PrintWriter stdout() {
        return spec.commandLine().getOut();
    }

    private PrintWriter stderr() {
        return spec.commandLine().getErr();
    }

    @Override
    public Integer call() {
        // Typed paths are the caller's (the launcher runs from the repository root); the default
        // out/hunt stays in the repository, where the launcher runs.
        if (spec.commandLine().getParseResult().hasMatchedOption("--out")) {
            out = CallerPaths.resolve(out);
        }
        if (replay != null) {
            return replay(CallerPaths.resolve(replay));
        }
        if (!(minutes > 0 && minutes <= MAX_MINUTES)) {
            stderr().println("hunt: --minutes must be more than 0 and at most " + (long) MAX_MINUTES + " (a week), was " + minutes);
            return 2;
        }
        Set<KnownBug> bugs;
        List<String> hunted;
        try {
            bugs = parseAblations(ablate);
            hunted = Generators.policies(policies);
        } catch (IllegalArgumentException bad) {
            stderr().println("hunt: " + bad.getMessage());
            return 2;
        }
        return hunt(bugs, hunted);
    }

    static Set<KnownBug> parseAblations(List<String> ids) {
        List<KnownBug> bugs = new ArrayList<>();
        for (String id : ids) {
            KnownBug match = null;
            for (KnownBug bug : KnownBug.values()) {
                if (bug.raceId().equalsIgnoreCase(id.trim())) {
                    match = bug;
                }
            }
            if (match == null) {
                throw new IllegalArgumentException("--ablate: unknown race '" + id + "' (R1..R13, W1, P1)");
            }
            bugs.add(match);
        }
        return Set.copyOf(bugs);
    }

    /** The profiles a deep hunt cycles through. */
    static List<Profile> rotation() {
        List<Profile> profiles = new ArrayList<>();
        profiles.add(Profile.swarm(HuntConfig.Level.STORE));
        profiles.add(Profile.swarm(HuntConfig.Level.ENGINE));
        for (KnownBug bug : KnownBug.values()) {
            profiles.add(Profile.forRace(bug.raceId()));
        }
        profiles.add(Profile.vllmV1());
        profiles.add(Profile.sglang());
        profiles.addAll(Profile.sglangStoreWritePolicies());
        profiles.addAll(Profile.writePolicies());
        profiles.addAll(Profile.prefetchStops());
        profiles.addAll(Profile.saveInStep());
        return profiles;
    }

    private int hunt(Set<KnownBug> bugs, List<String> hunted) {
        long startNs = System.nanoTime();
        long deadlineNs = startNs + (long) (minutes * 60e9);
        long nextReportNs = startNs + PROGRESS_INTERVAL_NS;
        Hunter.Progress progress = new Hunter.Progress();
        List<Finding> findings = new ArrayList<>();
        List<Profile> profiles = rotation();
        stdout().printf("hunt: %.1f min, seeds from %d, switches off: %s, policies: %s, failures to %s%n", minutes, seed,
                bugs.isEmpty() ? "none" : bugs, String.join(",", hunted), out);
        stdout().flush();
        long round = 0;
        // At least one round, however short the time: a hunt never reports a pass over 0 schedules.
        do {
            Profile profile = profiles.get((int) (round % profiles.size()));
            long roundSeed = seed + round;
            Optional<Finding> finding = Hunter.hunt(profile.name(), profile, bugs, hunted, roundSeed, EXAMPLES_PER_ROUND,
                    Hunter.exceptKnownFindings(progress), progress, System::nanoTime);
            if (finding.isPresent()) {
                Finding found = finding.get();
                findings.add(found);
                Path file = out.resolve(profile.name() + "-seed" + roundSeed + "-" + found.violation().check() + ".json");
                stdout().printf("FAIL %s seed %d: %s (shrunk %d -> %d steps)%n", profile.name(), roundSeed, found.violation(),
                        found.original().length(), found.shrunk().length());
                if (findings.size() <= MAX_REPLAY_FILES) {
                    try {
                        ReplayFile.of(found).write(file);
                        stdout().println("  replay: tierlab hunt --replay " + file);
                    } catch (IOException e) {
                        stderr().println("hunt: cannot write " + file + ": " + e.getMessage());
                    }
                }
            }
            round++;
            long now = System.nanoTime();
            if (now >= nextReportNs) {
                report(progress, findings.size(), now - startNs);
                nextReportNs = now + PROGRESS_INTERVAL_NS;
            }
        } while (System.nanoTime() < deadlineNs);
        long elapsedNs = System.nanoTime() - startNs;
        stdout().println("hunt finished:");
        report(progress, findings.size(), elapsedNs);
        stdout().printf("  rounds %d; schedules matching a known open finding (not counted as failures): %d %s%n", round,
                progress.knownFindings, progress.knownFindingCounts);
        for (Finding found : findings) {
            stdout().printf("  failing: %s seed %d, %s, shrunk %d -> %d steps%n", found.target(), found.seed(),
                    found.violation().check(), found.original().length(), found.shrunk().length());
        }
        stdout().flush();
        return findings.isEmpty() ? 0 : 1;
    }

    private void report(Hunter.Progress progress, int failures, long elapsedNs) {
        double seconds = elapsedNs / 1e9;
        stdout().printf("  %.0f s: %,d schedules, %,d steps (%,.0f schedules/s, %,.0f steps/s), %d failures%n", seconds,
                progress.schedules, progress.steps, progress.schedules / seconds, progress.steps / seconds, failures);
        stdout().flush();
    }

    private int replay(Path file) {
        ReplayFile saved;
        try {
            saved = ReplayFile.read(file);
        } catch (IllegalArgumentException bad) {
            // Already one line that starts with the file and says where and what (ReplayFile.read).
            stderr().println("hunt: " + bad.getMessage());
            return 2;
        } catch (IOException bad) {
            stderr().println("hunt: cannot read replay file " + file + ": "
                    + (bad instanceof java.nio.file.NoSuchFileException ? "no such file" : bad.getMessage()));
            return 2;
        }
        stdout().printf("replay %s: %s seed %d, recorded %s at %s%n", file, saved.target(), saved.seed(), saved.check(),
                saved.stepIndex() < 0 ? "final drain" : "step " + saved.stepIndex());
        stdout().println("  config: " + saved.schedule().config());
        for (int i = 0; i < saved.schedule().length(); i++) {
            stdout().printf("  %3d %s%n", i, saved.schedule().steps().get(i));
        }
        ScheduleResult result = saved.replay();
        if (result.passed()) {
            stdout().println("passes now: every check held");
            return 0;
        }
        stdout().println((saved.reproduces() ? "reproduced: " : "fails differently: ") + result.violation());
        return 1;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new HuntCommand()).execute(args));
    }
}
