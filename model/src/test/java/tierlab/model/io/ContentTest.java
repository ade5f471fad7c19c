package tierlab.model.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;
import tierlab.model.geometry.BlockKey;

/** Content's written-out equals and hashCode mean what the record's generated ones meant. */
class ContentTest {

    @Test
    void equalExactlyWhenKeyAndLaneAreEqual() {
        IoOp.Content content = new IoOp.Content(new BlockKey(1, 2), 3);
        assertEquals(content, new IoOp.Content(new BlockKey(1, 2), 3));
        assertEquals(content.hashCode(), new IoOp.Content(new BlockKey(1, 2), 3).hashCode());
        assertNotEquals(content, new IoOp.Content(new BlockKey(1, 2), 4));
        assertNotEquals(content, new IoOp.Content(new BlockKey(1, 5), 3));
        assertNotEquals(content, new IoOp.Content(new BlockKey(5, 2), 3));
        assertNotEquals(content, null);
        assertNotEquals(content, (Object) new BlockKey(1, 2));
    }

    @Test
    void hashCodeIsTheRecordFormula() {
        BlockKey key = new BlockKey(0x1234_5678_9abc_def0L, 0x0fed_cba9_8765_4321L);
        assertEquals(31 * key.hashCode() + 7, new IoOp.Content(key, 7).hashCode());
    }
}
