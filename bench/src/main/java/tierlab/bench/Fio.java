package tierlab.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one fio job for a {@link BenchCase} on the benchmark's file and reads its JSON report.
 *
 * <p>The job mirrors the engine's closed loop: {@code ioengine=io_uring}, {@code direct=1}, the
 * same {@code rw}, {@code bs} and {@code iodepth}, the same file and size, {@code time_based}
 * for the same number of seconds, {@code fixedbufs=1} because the engine registers its arena as
 * fixed buffers (READ_FIXED/WRITE_FIXED), and {@code norandommap=1} because the engine draws
 * random offsets uniformly with repetition. One job, one thread, one ring, like one engine ring.
 */
public final class Fio {

    /** Extra seconds fio may take beyond its run time (start-up, file open, report) before it is killed. */
    private static final long GRACE_SECONDS = 60;

    private final String executable;

    public Fio(String executable) {
        this.executable = executable;
    }

    /** fio's version line ("fio-3.33"), or an exception saying fio is missing or broken. */
    public String version() throws IOException {
        ProcessResult result = exec(List.of(executable, "--version"), 30);
        if (result.exitCode != 0 || !result.stdout.strip().startsWith("fio-")) {
            throw new IOException("'" + executable + " --version' exited with " + result.exitCode + ": "
                    + (result.stdout + result.stderr).strip());
        }
        return result.stdout.strip();
    }

    /** The fio command line for one case; the JSON report goes to {@code jsonOut}. */
    public List<String> command(BenchCase benchCase, Path file, long fileBytes, int seconds, Path jsonOut) {
        List<String> command = new ArrayList<>();
        command.add(executable);
        command.add("--name=" + benchCase.name());
        command.add("--filename=" + file.toAbsolutePath());
        command.add("--size=" + fileBytes);
        command.add("--ioengine=io_uring");
        command.add("--direct=1");
        command.add("--fixedbufs=1");
        command.add("--rw=" + benchCase.access().fioRw());
        command.add("--bs=" + benchCase.fioBlockSize());
        command.add("--iodepth=" + benchCase.queueDepth());
        if (benchCase.access().random()) {
            command.add("--norandommap=1");
        }
        command.add("--time_based=1");
        command.add("--runtime=" + seconds + "s");
        command.add("--output-format=json");
        command.add("--output=" + jsonOut.toAbsolutePath());
        return command;
    }

    /** Runs one job and parses its report; the report file is kept beside the other bench outputs. */
    public FioResult run(BenchCase benchCase, Path file, long fileBytes, int seconds, Path jsonOut)
            throws IOException, FioResult.FioOutputException {
        Files.deleteIfExists(jsonOut);
        List<String> command = command(benchCase, file, fileBytes, seconds, jsonOut);
        ProcessResult result = exec(command, seconds + GRACE_SECONDS);
        String report = Files.exists(jsonOut) ? Files.readString(jsonOut, StandardCharsets.UTF_8) : "";
        if (result.exitCode != 0) {
            String detail = (result.stderr + result.stdout).strip();
            throw new FioResult.FioOutputException("fio exited with " + result.exitCode + " for " + benchCase.name()
                    + (detail.isEmpty() ? "" : ": " + firstLines(detail, 5)));
        }
        return FioResult.parse(report, benchCase.access().write());
    }

    private record ProcessResult(int exitCode, String stdout, String stderr) {}

    private static ProcessResult exec(List<String> command, long timeoutSeconds) throws IOException {
        Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new IOException("cannot run " + command.getFirst() + " (" + e.getMessage().strip()
                    + "; Debian: apt-get install -y fio)", e);
        }
        process.getOutputStream().close();
        // fio's output is small; read both streams on their own threads so neither pipe fills up.
        var stdout = readAsync(process.getInputStream());
        var stderr = readAsync(process.getErrorStream());
        try {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(command.getFirst() + " did not finish within " + timeoutSeconds + " s; killed it");
            }
            return new ProcessResult(process.exitValue(), stdout.get(), stderr.get());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + command.getFirst(), e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("reading the output of " + command.getFirst() + " failed", e.getCause());
        }
    }

    private static java.util.concurrent.CompletableFuture<String> readAsync(java.io.InputStream stream) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try (stream) {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static String firstLines(String text, int lines) {
        return String.join(" | ", text.lines().limit(lines).toList());
    }
}
