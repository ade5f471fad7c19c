package tierlab.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tierlab.model.io.StoragePort;

/** The storage-port contract on positional FileChannel I/O. */
class FileChannelBackendTest extends StoragePortContract {

    @Override
    protected StoragePort open(Path l2Path, PinnedArena arena, long maxTransferBytes, long preallocateBytes) throws IOException {
        return FileChannelBackend.open(l2Path, arena, FileChannelSettings.defaults()
                .withMaxTransferBytes(maxTransferBytes).withL2PreallocateBytes(preallocateBytes));
    }

    @Override
    protected void poisonFileDescriptor(StoragePort port) throws IOException {
        ((FileChannelBackend) port).poisonFileDescriptorForTest();
    }

    @Override
    protected IoCounters counters(StoragePort port) {
        return ((FileChannelBackend) port).counters();
    }

    @Override
    protected List<IoFailure> failures(StoragePort port) {
        return ((FileChannelBackend) port).recentFailures();
    }

    @Override
    protected String threadNamePrefix() {
        return "tierlab-filechannel-";
    }

    @Test
    void usesDirectIoWhereTheFileSystemSupportsIt() throws IOException {
        FileChannelBackend backend = (FileChannelBackend) openDefault();
        // The test directory was chosen because it accepts O_DIRECT.
        assertTrue(backend.directIo(), backend.directIoStatus());
        assertTrue(backend.directIoStatus().startsWith("DIRECT"), backend.directIoStatus());
    }

    @Test
    void completionsArriveOnWorkerThreads() throws IOException {
        StoragePort port = openDefault();
        CompletionCollector collector = new CompletionCollector();
        port.submit(List.of(read(0, BLOCK, 0), read(BLOCK, BLOCK, BLOCK)), collector);
        collector.await(2, TIMEOUT);
        assertTrue(collector.threadNames().stream().allMatch(name -> name.startsWith("tierlab-filechannel-worker-")),
                () -> collector.threadNames().toString());
    }
}
