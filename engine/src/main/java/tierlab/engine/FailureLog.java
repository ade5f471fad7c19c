package tierlab.engine;

import java.util.ArrayDeque;
import java.util.List;

/** The most recent failures with their messages, bounded so a failing device cannot grow memory. */
final class FailureLog {

    static final int CAPACITY = 256;

    private final ArrayDeque<IoFailure> recent = new ArrayDeque<>();

    synchronized void add(IoFailure failure) {
        if (recent.size() == CAPACITY) {
            recent.removeFirst();
        }
        recent.addLast(failure);
    }

    synchronized List<IoFailure> snapshot() {
        return List.copyOf(recent);
    }
}
