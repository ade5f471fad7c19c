package tierlab.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.math3.random.Well19937c;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import tierlab.model.geometry.BlockKey;
import tierlab.model.geometry.Geometry;
import tierlab.model.request.RequestSpec;
import tierlab.model.testkit.Rejections;
import tierlab.model.util.SeedTree;

class SyntheticWorkloadTest {

    private static final Geometry GEOMETRY = Geometry.qwen3_8b();

    private static final SyntheticSettings SHARED = new SyntheticSettings(600,
            new ArrivalProcess.Poisson(50),
            LengthDistribution.uniform(300, 700),
            LengthDistribution.uniform(1, 32),
            new SyntheticSettings.SharedPrefixes(10, 1.0, 256),
            SyntheticSettings.Sessions.SINGLE_TURN);

    @Test
    void theSameSeedGivesTheSameListAndAnotherSeedAnother() {
        List<RequestSpec> first = SyntheticWorkload.generate(SHARED, GEOMETRY, new SeedTree(7));
        List<RequestSpec> again = SyntheticWorkload.generate(SHARED, GEOMETRY, new SeedTree(7));
        List<RequestSpec> other = SyntheticWorkload.generate(SHARED, GEOMETRY, new SeedTree(8));

        assertEquals(first, again);
        assertNotEquals(first, other);
        assertNotEquals(first.stream().map(RequestSpec::arrivalNs).toList(),
                other.stream().map(RequestSpec::arrivalNs).toList());
    }

    @Test
    void requestsAreSortedByArrivalWithIdsInArrivalOrder() {
        List<RequestSpec> requests = SyntheticWorkload.generate(SHARED, GEOMETRY, new SeedTree(1));

        assertEquals(600, requests.size());
        Workloads.checkOrderedAndUnique(requests);
        for (int i = 0; i < requests.size(); i++) {
            RequestSpec request = requests.get(i);
            assertEquals(i, request.requestId());
            assertTrue(request.promptTokens() >= 300 && request.promptTokens() <= 700);
            assertTrue(request.outputTokens() >= 1 && request.outputTokens() <= 32);
            assertEquals(request.promptTokens() / 16, request.chain().size());
        }
        assertEquals(0, requests.getFirst().arrivalNs(), "the first arrival is at time 0");
    }

    @Test
    void prefixesFollowZipfAndShareExactlyThePrefixBlocks() {
        List<RequestSpec> requests = SyntheticWorkload.generate(SHARED.withSharedPrefixes(
                new SyntheticSettings.SharedPrefixes(10, 1.2, 256)), GEOMETRY, new SeedTree(3));
        int prefixBlocks = 256 / 16;

        Map<BlockKey, List<RequestSpec>> byPrefix = new LinkedHashMap<>();
        for (RequestSpec request : requests) {
            byPrefix.computeIfAbsent(request.chain().get(prefixBlocks - 1), k -> new ArrayList<>()).add(request);
        }
        assertTrue(byPrefix.size() <= 10, "at most the pool's prefixes: " + byPrefix.size());
        List<Integer> uses = byPrefix.values().stream().map(List::size).sorted(Collections.reverseOrder()).toList();
        // Zipf(1.2) over 10: the top rank draws ~40% of 600, the tenth ~3%.
        assertTrue(uses.getFirst() > 3 * uses.getLast(), "skewed use of the prefixes: " + uses);
        assertTrue(uses.getFirst() > 600 / 10 * 2, "the most popular prefix is far above uniform: " + uses);

        for (List<RequestSpec> group : byPrefix.values()) {
            RequestSpec a = group.get(0);
            for (RequestSpec b : group.subList(1, group.size())) {
                assertEquals(a.chain().subList(0, prefixBlocks), b.chain().subList(0, prefixBlocks));
                assertNotEquals(a.chain().get(prefixBlocks), b.chain().get(prefixBlocks),
                        "the unique suffix starts right after the shared prefix");
            }
        }
    }

    @Test
    void withoutAPoolNoTwoRequestsShareABlock() {
        List<RequestSpec> requests = SyntheticWorkload.generate(
                SyntheticSettings.independent(200, new ArrivalProcess.Poisson(10), LengthDistribution.fixed(64),
                        LengthDistribution.fixed(1)),
                GEOMETRY, new SeedTree(5));

        assertEquals(200 * 4, requests.stream().flatMap(r -> r.chain().stream()).distinct().count());
    }

    @Test
    void everySessionTurnExtendsThePreviousTurnsChain() {
        SyntheticSettings settings = SyntheticSettings.independent(31, new ArrivalProcess.Poisson(5),
                        LengthDistribution.fixed(100), LengthDistribution.fixed(24))
                .withSessions(new SyntheticSettings.Sessions(3, LengthDistribution.fixed(40), 2.0));

        List<RequestSpec> requests = SyntheticWorkload.generate(settings, GEOMETRY, new SeedTree(11));

        assertEquals(31, requests.size());
        Workloads.checkOrderedAndUnique(requests);
        // A session is known by its first block, which its unique first prompt fixes.
        Map<BlockKey, List<RequestSpec>> sessions = new LinkedHashMap<>();
        for (RequestSpec request : requests) {
            sessions.computeIfAbsent(request.chain().getFirst(), k -> new ArrayList<>()).add(request);
        }
        assertEquals(11, sessions.size(), "31 requests in sessions of 3: ten whole sessions and one cut short");
        int cutShort = 0;
        for (List<RequestSpec> turns : sessions.values()) {
            if (turns.size() < 3) {
                cutShort++;
            }
            // Turn k = turn k-1 prompt + its 24-token answer + 40 new user tokens.
            for (int turn = 0; turn < turns.size(); turn++) {
                assertEquals(100 + turn * (24 + 40), turns.get(turn).promptTokens(), "turn " + turn);
            }
            for (int turn = 1; turn < turns.size(); turn++) {
                List<BlockKey> previous = turns.get(turn - 1).chain();
                List<BlockKey> current = turns.get(turn).chain();
                assertTrue(current.size() > previous.size());
                assertEquals(previous, current.subList(0, previous.size()), "turn " + turn + " extends turn " + (turn - 1));
                assertTrue(turns.get(turn).arrivalNs() >= turns.get(turn - 1).arrivalNs());
            }
        }
        assertEquals(1, cutShort);
    }

    @Test
    void sessionsStartOnSharedPrefixes() {
        SyntheticSettings settings = SHARED.withSessions(new SyntheticSettings.Sessions(4, LengthDistribution.uniform(10, 50), 1.0));

        List<RequestSpec> requests = SyntheticWorkload.generate(settings, GEOMETRY, new SeedTree(2));

        long distinctPrefixes = requests.stream().map(r -> r.chain().get(256 / 16 - 1)).distinct().count();
        assertTrue(distinctPrefixes <= 10, "every turn still starts with one of the pool's prefixes");
    }

    @Test
    void poissonArrivalsHaveTheConfiguredRate() {
        long[] times = new ArrivalProcess.Poisson(1_000).arrivalTimesNs(20_001, new Well19937c(99));

        double meanGapNs = (double) times[times.length - 1] / (times.length - 1);
        assertEquals(1e6, meanGapNs, 0.03 * 1e6);
        for (int i = 1; i < times.length; i++) {
            assertTrue(times[i] >= times[i - 1]);
        }
    }

    @Test
    void burstyArrivalsComeInBurstsSeparatedByIdleGaps() {
        ArrivalProcess.Bursty bursty = new ArrivalProcess.Bursty(10_000, 20, 1.0);

        long[] times = bursty.arrivalTimesNs(2_000, new Well19937c(4));

        double inBurst = 0;
        double idle = 0;
        for (int i = 1; i < times.length; i++) {
            if (i % 20 == 0) {
                idle += times[i] - times[i - 1];
            } else {
                inBurst += times[i] - times[i - 1];
            }
        }
        double meanInBurstNs = inBurst / (times.length - 1 - 99);
        double meanIdleNs = idle / 99;
        assertEquals(1e5, meanInBurstNs, 0.1 * 1e5, "in-burst gaps at 10,000/s");
        assertEquals(1e9, meanIdleNs, 0.25 * 1e9, "idle gaps of 1 s mean");
    }

    @Test
    void badSettingsNameTheirField() {
        assertMessage("requestCount", () -> SyntheticSettings.independent(0, new ArrivalProcess.Poisson(1),
                LengthDistribution.fixed(10), LengthDistribution.fixed(1)));
        assertMessage("arrivals", () -> SyntheticSettings.independent(1, null,
                LengthDistribution.fixed(10), LengthDistribution.fixed(1)));
        assertMessage("ratePerSecond", () -> new ArrivalProcess.Poisson(0));
        assertMessage("burstLengthRequests", () -> new ArrivalProcess.Bursty(1, 0, 1));
        assertMessage("idleGapMeanSeconds", () -> new ArrivalProcess.Bursty(1, 1, -1));
        assertMessage("minTokens", () -> LengthDistribution.uniform(0, 10));
        assertMessage("maxTokens", () -> LengthDistribution.uniform(10, 5));
        assertMessage("tokens", () -> LengthDistribution.fixed(0));
        assertMessage("sharedPrefixes.zipfExponent", () -> new SyntheticSettings.SharedPrefixes(4, 0, 16));
        assertMessage("sharedPrefixes.prefixTokens", () -> new SyntheticSettings.SharedPrefixes(4, 1, 0));
        assertMessage("sharedPrefixes.poolSize", () -> new SyntheticSettings.SharedPrefixes(-1, 1, 0));
        assertMessage("sessions.turnsPerSession", () -> new SyntheticSettings.Sessions(0, LengthDistribution.fixed(1), 0));
        assertMessage("sessions.thinkTimeMeanSeconds",
                () -> new SyntheticSettings.Sessions(2, LengthDistribution.fixed(1), Double.POSITIVE_INFINITY));
        IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
                () -> SHARED.withSharedPrefixes(new SyntheticSettings.SharedPrefixes(4, 1, 300)));
        assertTrue(tooShort.getMessage().startsWith("promptTokens"), tooShort.getMessage());
        assertTrue(tooShort.getMessage().contains("sharedPrefixes.prefixTokens (300)"), tooShort.getMessage());
    }

    @Test
    void settingsReadFromYaml() throws Exception {
        String yaml = """
                requestCount: 50
                arrivals: {kind: bursty, burstRatePerSecond: 100, burstLengthRequests: 10, idleGapMeanSeconds: 2}
                promptTokens: {kind: uniform, minTokens: 600, maxTokens: 900}
                outputTokens: {kind: fixed, tokens: 8}
                sharedPrefixes: {poolSize: 4, zipfExponent: 0.9, prefixTokens: 512}
                """;

        SyntheticSettings settings = new ObjectMapper(new YAMLFactory()).readValue(yaml, SyntheticSettings.class);

        assertEquals(new ArrivalProcess.Bursty(100, 10, 2), settings.arrivals());
        assertEquals(LengthDistribution.uniform(600, 900), settings.promptTokens());
        assertEquals(SyntheticSettings.Sessions.SINGLE_TURN, settings.sessions(), "an absent section means none");
        assertEquals(50, SyntheticWorkload.generate(settings, GEOMETRY, new SeedTree(1)).size());
    }

    private static void assertMessage(String field, Executable construct) {
        Rejections.assertRejectedLeading(field, construct);
    }
}
