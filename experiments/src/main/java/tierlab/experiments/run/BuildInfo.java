package tierlab.experiments.run;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Which tierlab this is, for run.json's {@code tierlab} section, so that a result names the code that made it: the version
 * (Maven fills {@code tierlab/version.properties} at build time) and, in the distribution archive,
 * the commit and archive name that tools/dist.sh baked into {@code tierlab/build.properties}
 * (lib/tierlab-build-info.jar), because the host the archive runs on has no git checkout.
 *
 * @param version      the project version, "unknown" when the resource is missing
 * @param gitCommit    the commit the archive was built from; null outside an archive (the
 *                     checkout's commit is asked of git then)
 * @param distribution the archive's name, null when running from the repository
 */
public record BuildInfo(String version, String gitCommit, String distribution) {

    static final String VERSION_RESOURCE = "/tierlab/version.properties";
    static final String BUILD_RESOURCE = "/tierlab/build.properties";

    private static final BuildInfo CURRENT = load();

    public static BuildInfo current() {
        return CURRENT;
    }

    static BuildInfo load() {
        Properties version = read(VERSION_RESOURCE);
        Properties build = read(BUILD_RESOURCE);
        String v = build.getProperty("version", version.getProperty("version", "unknown"));
        return new BuildInfo(v, build.getProperty("gitCommit"), build.getProperty("distribution"));
    }

    private static Properties read(String resource) {
        Properties properties = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(resource)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            // An unreadable resource is a missing one: run.json then says "unknown" rather than failing the run.
        }
        return properties;
    }

    /**
     * One line naming the code that is running, for reports that have no run.json beside them:
     * "tierlab VERSION, commit COMMIT (repository)" or "... (archive NAME)"; the commit as run.json states it.
     */
    public static String describeCurrent() {
        BuildInfo build = current();
        return "tierlab " + build.version + ", commit " + RunInfo.currentGitCommit() + " ("
                + (build.distribution != null ? "archive " + build.distribution : "repository") + ")";
    }

    /** {@code version}, {@code gitCommit} (as run.json's top level has it) and {@code from} ("repository" or the archive's name). */
    void writeTo(ObjectNode node, String commit) {
        node.put("version", version);
        node.put("gitCommit", commit);
        node.put("from", distribution != null ? "archive " + distribution : "repository");
    }
}
