package tierlab.spark;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP connect to a standalone master before Spark is started: Spark itself retries an unreachable
 * master for about a minute and then fails with a stack trace of its RPC layer, while a refused or
 * unanswered connect says in a few seconds what is wrong. Only {@code spark://} masters are probed;
 * {@code local}, {@code yarn} and {@code k8s} masters are Spark's to find.
 */
final class MasterProbe {

    /** The standalone master's port when the URL names none (Spark's default). */
    static final int DEFAULT_PORT = 7077;
    /** How long one connect may take: a master on a reachable host answers well within it. */
    static final int CONNECT_TIMEOUT_MS = 3000;

    private MasterProbe() {
    }

    /**
     * Null when {@code master} is not a standalone master or one of its hosts (a high-availability
     * URL lists several, comma-separated) takes a connection; else the one line that says why not.
     */
    static String unreachable(String master) {
        if (master == null || !master.startsWith("spark://")) {
            return null;
        }
        List<String> causes = new ArrayList<>();
        for (String hostPort : master.substring("spark://".length()).split(",")) {
            String cause = connectProblem(hostPort.strip());
            if (cause == null) {
                return null;
            }
            causes.add(cause);
        }
        return "cannot reach the Spark master " + master + " (" + String.join("; ", causes) + ")";
    }

    /** Null when {@code hostPort} takes a TCP connection, else the reason in words. */
    private static String connectProblem(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        int port;
        try {
            port = colon < 0 ? DEFAULT_PORT : Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            return "'" + hostPort + "' is not HOST:PORT";
        }
        if (host.isEmpty() || port < 1 || port > 65535) {
            return "'" + hostPort + "' is not HOST:PORT";
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            return null;
        } catch (UnknownHostException e) {
            return "unknown host " + host;
        } catch (ConnectException e) {
            return "connection refused";
        } catch (NoRouteToHostException e) {
            return "no route to host " + host;
        } catch (SocketTimeoutException e) {
            return "no answer from " + hostPort + " within " + CONNECT_TIMEOUT_MS / 1000 + " s";
        } catch (IOException e) {
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
    }
}
