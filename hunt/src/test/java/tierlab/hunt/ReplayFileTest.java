package tierlab.hunt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Saved failing schedules replay exactly: same check at the same step, every time, from the file alone. */
class ReplayFileTest {
    @TempDir
    Path dir;

    static ReplayFile resource(String name) throws IOException {
        try (InputStream in = ReplayFileTest.class.getClassLoader().getResourceAsStream(name)) {
            return ReplayFile.read(in, name);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"replays/R1-stale-promotion.json", "replays/R8-borrowed-slice.json"})
    void aSavedAblationFailureReplaysExactly(String name) throws IOException {
        ReplayFile saved = resource(name);
        assertFalse(saved.schedule().config().knownBugs().isEmpty(), "an ablation replay carries its switch");
        ScheduleResult first = saved.replay();
        ScheduleResult second = saved.replay();
        assertEquals(saved.check(), first.violation().check(), first.violation().toString());
        assertEquals(saved.stepIndex(), first.violation().stepIndex());
        assertEquals(first, second, "deterministic: the same violation and decision trace hash");
        assertTrue(saved.reproduces());
    }

    @Test
    void theR1ReplayFailsOnlyWithItsSwitch() throws IOException {
        ReplayFile saved = resource("replays/R1-stale-promotion.json");
        Schedule fixed = new Schedule(saved.schedule().config().withKnownBugs(java.util.Set.of()), saved.schedule().steps());
        ScheduleResult result = Runner.run(fixed);
        assertTrue(result.passed(), "with the fix the same schedule holds: " + result.violation());
        assertEquals(Check.I6, saved.check());
    }

    // No finding is open now (F1 and F2 are fixed, see below); the guard stays for the next one the hunt records.
    @ParameterizedTest(allowZeroInvocations = true)
    @EnumSource(KnownFinding.class)
    void everyKnownFindingStillReproducesFromItsFile(KnownFinding finding) throws IOException {
        ReplayFile saved = finding.replay(getClass().getClassLoader());
        assertTrue(saved.schedule().config().knownBugs().isEmpty(), "a known finding is in the fixed model");
        ScheduleResult result = saved.replay();
        assertFalse(result.passed(), finding + " passes now: fixed? then remove it from KnownFinding");
        assertEquals(Optional.of(finding), KnownFinding.match(saved.schedule(), result), result.violation().toString());
        assertTrue(saved.reproduces());
    }

    /** F1, F2 and F3 were open findings of the fixed model; their shrunk schedules must now hold every check. */
    @ParameterizedTest
    @ValueSource(strings = {"replays/fixed/F1-outdated-promotion-published.json", "replays/fixed/F2-preemption-livelock.json",
            "replays/fixed/F3-sglang-retract-livelock.json"})
    void aFixedFindingsReplayNowPasses(String name) throws IOException {
        ReplayFile saved = resource(name);
        assertTrue(saved.schedule().config().knownBugs().isEmpty(), "a finding of the fixed model, no switch on");
        ScheduleResult first = saved.replay();
        assertTrue(first.passed(), name + " fails again: " + first.violation());
        assertFalse(saved.reproduces());
        assertEquals(first, saved.replay(), "deterministic: the same outcome and decision trace hash");
    }

    /** With no open finding, a fixed-model violation shaped exactly like F1, F2 or F3 fails a property again. */
    @ParameterizedTest
    @ValueSource(strings = {"replays/fixed/F1-outdated-promotion-published.json", "replays/fixed/F2-preemption-livelock.json",
            "replays/fixed/F3-sglang-retract-livelock.json"})
    void aViolationLikeAFixedFindingIsCountedAgain(String name) throws IOException {
        ReplayFile saved = resource(name);
        // The result the replay gave while the finding was open: its recorded check, with what its matcher looked at.
        ScheduleResult asBefore = new ScheduleResult(new Violation(saved.check(), saved.stepIndex(), saved.message()), 0, 0, 0, 0, 1, 1);
        Hunter.Progress progress = new Hunter.Progress();
        assertTrue(Hunter.exceptKnownFindings(progress).test(saved.schedule(), asBefore), "counted as a failure");
        assertEquals(Optional.empty(), KnownFinding.match(saved.schedule(), asBefore));
        assertEquals(0, progress.knownFindings);
    }

    @Test
    void aReplayFileRoundTripsThroughJson() throws IOException {
        ReplayFile saved = resource("replays/R8-borrowed-slice.json");
        Path file = dir.resolve("again.json");
        saved.write(file);
        assertEquals(saved, ReplayFile.read(file));
    }

    @Test
    void aFileOfAnotherFormatIsRefusedWithItsName() throws IOException {
        Path file = dir.resolve("future.json");
        java.nio.file.Files.writeString(file, "{\"format\": 99, \"schedule\": null}");
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ReplayFile.read(file));
        assertTrue(refused.getMessage().contains("future.json") && refused.getMessage().contains("99"), refused.getMessage());
    }

    @Test
    void stepsSerializeWithTheirOperationName() {
        Schedule schedule = new Schedule(Schedules.tinyStore(List.of()).config(),
                List.of(new Step.Save(0, 1), new Step.Complete(0, false), new Step.Arrive(1, 2, 3, 1)));
        String json = new ReplayFile(ReplayFile.FORMAT, "unit", 1, Check.I6, 0, "m", 3, schedule).toJson();
        assertTrue(json.contains("\"op\" : \"save\"") && json.contains("\"op\" : \"complete\"") && json.contains("\"op\" : \"arrive\""), json);
    }
}
