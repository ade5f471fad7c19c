package tierlab.sim.kernel;

import tierlab.model.util.SeedTree;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatorTest {
    @Test
    void eventsFireInTimeThenSchedulingOrder() {
        Simulator simulator = new Simulator();
        List<String> fired = new ArrayList<>();
        simulator.at(20, now -> fired.add("b@" + now));
        simulator.at(10, now -> fired.add("a@" + now));
        simulator.at(20, now -> fired.add("c@" + now));
        simulator.at(10, now -> simulator.after(5, later -> fired.add("d@" + later)));
        simulator.run();
        assertEquals(List.of("a@10", "d@15", "b@20", "c@20"), fired);
        assertEquals(5, simulator.eventsFired());
    }

    @Test
    void aHorizonStopsBeforeLaterEventsAndThePastIsRefused() {
        Simulator simulator = new Simulator();
        List<Long> fired = new ArrayList<>();
        for (long t = 0; t < 100; t += 10) {
            simulator.at(t, fired::add);
        }
        assertEquals(5, simulator.run(40));
        assertEquals(40, simulator.nowNs());
        assertEquals(5, simulator.pendingEvents());
        assertThrows(IllegalArgumentException.class, () -> simulator.at(39, now -> { }));
        simulator.run();
        assertEquals(10, fired.size());
    }

    @Test
    void componentSeedsDependOnlyOnTheMasterSeedAndTheName() {
        SeedTree a = new SeedTree(1);
        SeedTree b = new SeedTree(1);
        assertEquals(a.random("nvme").nextLong(), b.random("nvme").nextLong());
        assertNotEquals(a.seedOf("nvme"), a.seedOf("arrivals"));
        assertNotEquals(new SeedTree(2).seedOf("nvme"), a.seedOf("nvme"));
    }
}
