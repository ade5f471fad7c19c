package tierlab.sim.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import tierlab.model.trace.DecisionTrace;

class DecisionLogTest {
    @Test
    void writesOneJsonObjectPerDecisionAndLeavesTheHashAlone() throws Exception {
        StringWriter out = new StringWriter();
        long[] now = {0};
        DecisionTrace logged;
        try (DecisionLog log = new DecisionLog(out, () -> now[0])) {
            logged = new DecisionTrace(0, log);
            DecisionTrace plain = new DecisionTrace();
            for (int i = 0; i < 5; i++) {
                now[0] = i * 1000L;
                logged.record("lookup", i, 2, 3);
                plain.record("lookup", i, 2, 3);
            }
            assertEquals(plain.hash(), logged.hash());
            assertEquals(5, log.lines());
        }
        String[] lines = out.toString().split("\n");
        assertEquals(5, lines.length);
        JsonNode last = new ObjectMapper().readTree(lines[4]);
        assertEquals(4000, last.get("t").asLong());
        assertEquals("lookup", last.get("kind").asText());
        assertEquals(4, last.get("v").get(0).asLong());
        assertTrue(last.get("v").isArray());
    }
}
