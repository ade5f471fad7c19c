package tierlab.engine.persist;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A second process for {@link L2FileLockTest}: {@code try PATH} tries to lock the L2 file at PATH
 * once and prints {@code locked} or {@code held: <message>}; {@code hold PATH} locks it, prints
 * {@code locked}, and keeps it until its standard input closes.
 */
public final class L2LockProbe {

    private L2LockProbe() {}

    public static void main(String[] args) throws IOException {
        Path path = Path.of(args[1]);
        try (L2FileLock lock = L2FileLock.acquire(path)) {
            System.out.println("locked");
            System.out.flush();
            if (args[0].equals("hold")) {
                while (System.in.read() >= 0) {
                    // Held until the parent closes our input (or kills us).
                }
            }
        } catch (L2FileLock.HeldException e) {
            System.out.println("held: " + e.getMessage());
        }
    }
}
