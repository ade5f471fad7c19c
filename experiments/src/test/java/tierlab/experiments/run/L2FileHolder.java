package tierlab.experiments.run;

import java.io.IOException;
import java.nio.file.Path;
import tierlab.engine.persist.L2FileLock;

/**
 * Another process on a persistent L2 file, for the tests: locks the file at its argument as a run
 * would, prints {@code locked}, and holds it until its standard input closes.
 */
public final class L2FileHolder {

    private L2FileHolder() {}

    public static void main(String[] args) throws IOException {
        try (L2FileLock lock = L2FileLock.acquire(Path.of(args[0]))) {
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0) {
                // Held until the test closes our input or kills us.
            }
        }
    }
}
