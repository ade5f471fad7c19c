package tierlab.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tierlab.hunt.Finding;
import tierlab.hunt.Profile;
import tierlab.hunt.ReplayFile;
import tierlab.model.KnownBug;

/**
 * Turns every race's fix off in turn and runs that race's property (see {@link RaceProperties})
 * within the quick budget: each must fail, shrink to a short schedule, and replay exactly from its
 * file. Prints the table (race, detected, detection time, schedules until detection, shrunk
 * length, seed) and writes it with every shrunk replay file under {@code target/ablation-hunt/}.
 */
class AblationHuntTest {
    /** The quick budget per race: schedules QuickTheories may draw before the race must be found. */
    static final int BUDGET_SCHEDULES = 5_000;

    record Row(String race, boolean detected, long detectionMillis, int schedules, int originalLength, int shrunkLength,
               long seed, String check) {}

    @Test
    void everyRaceIsFoundWithItsFixSwitchedOffAndShrinksToAReplayableSchedule() throws IOException {
        Path dir = Path.of("target", "ablation-hunt");
        Files.createDirectories(dir);
        List<Row> rows = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (KnownBug race : KnownBug.values()) {
            Optional<Finding> found = HuntSupport.hunt(race.raceId() + " (fix off)", Profile.forRace(race.raceId()),
                    Set.of(race), BUDGET_SCHEDULES, (schedule, result) -> true);
            if (found.isEmpty()) {
                rows.add(new Row(race.raceId(), false, -1, BUDGET_SCHEDULES, 0, 0, HuntSupport.SEED, "-"));
                problems.add(race.raceId() + " not detected within " + BUDGET_SCHEDULES + " schedules");
                continue;
            }
            Finding finding = found.get();
            ReplayFile replay = ReplayFile.of(finding);
            Path file = dir.resolve(race.raceId() + ".json");
            replay.write(file);
            // The printed and saved schedule replays exactly: same check, same step.
            if (!ReplayFile.read(file).reproduces()) {
                problems.add(race.raceId() + ": the saved replay " + file + " does not reproduce " + finding.violation());
            }
            System.out.println(HuntSupport.describe(finding));
            rows.add(new Row(race.raceId(), true, finding.detectionMillis(), finding.schedulesTried(), finding.original().length(),
                    finding.shrunk().length(), finding.seed(), finding.violation().check().name()));
        }
        StringBuilder table = new StringBuilder();
        table.append("| race | detected | detection time | schedules until detection | generated length | shrunk length | seed | check |\n");
        table.append("|---|---|---:|---:|---:|---:|---:|---|\n");
        for (Row row : rows) {
            table.append(String.format("| %s | %s | %s | %d | %d | %d | %d | %s |%n", row.race(), row.detected() ? "yes" : "NO",
                    row.detected() ? row.detectionMillis() + " ms" : "-", row.schedules(), row.originalLength(), row.shrunkLength(),
                    row.seed(), row.check()));
        }
        long detected = rows.stream().filter(Row::detected).count();
        table.append("\n").append(detected).append(" of ").append(rows.size()).append(" races detected\n");
        Files.writeString(dir.resolve("table.md"), table);
        System.out.println(table);
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertEquals(KnownBug.values().length, detected, "every race detected (R1-R13, W1 and P1)");
    }
}
