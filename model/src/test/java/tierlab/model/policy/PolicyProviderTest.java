package tierlab.model.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A policy registered through the start-up mechanism ({@link PolicyProvider} found by
 * {@link java.util.ServiceLoader}) is listed after the built-in ones and runs by its name. The
 * provider's service file is written here and seen only by a class loader of this test's own, so
 * no other test (and no catalogue table) ever sees the extra policy.
 */
class PolicyProviderTest {
    @TempDir
    Path services;

    @Test
    @SuppressWarnings("unchecked")
    void aProvidedPolicyIsListedLastAndRunsByName() throws Exception {
        List<String> facts = (List<String>) runIsolated(TestPolicyProvider.class, "run");

        // Built-in order first, unchanged; the provided policy after them.
        List<String> names = List.of(facts.get(0).split(","));
        assertEquals(Policies.names(), names.subList(0, names.size() - 1));
        assertEquals(MruTestPolicy.NAME, names.getLast());
        // 1 2 3 (3 evicts 2, the most recent) 1 hits, 2 (evicts 1) 3 hits, 1 (evicts 3) 2 hits.
        assertEquals("3/5", facts.get(1));
        // The store asks the policy by name: of six prompts saved in turn into an L1 that holds one whole, MRU keeps
        // the first (every later save evicts the newest blocks), LRU the last.
        assertEquals("p0", facts.get(2), facts.toString());
        assertTrue(Long.parseLong(facts.get(3)) > 0, "the store asked the provided policy for victims");
        assertEquals("p5", facts.get(4), facts.toString());
        // This class loader saw no provider: the extra policy exists only where its service file is.
        assertFalse(Policies.names().contains(MruTestPolicy.NAME));
    }

    @Test
    void aProvidedNameTakenByABuiltInPolicyIsRefusedInOneLineNamingBoth() throws Exception {
        Throwable failure = assertThrows(InvocationTargetException.class,
                () -> runIsolated(DuplicatePolicyProvider.class, "names")).getCause();
        // The registry is built when Policies is first used; the refusal is the cause of that class's failed start.
        assertEquals(ExceptionInInitializerError.class, failure.getClass());
        assertEquals("policy 'lru' is registered twice: built in and by " + DuplicatePolicyProvider.class.getName(),
                failure.getCause().getMessage());
    }

    /**
     * Calls {@code PolicyProviderRun.method()} in a class loader of its own over the model's classes, this
     * module's test classes and a service file naming {@code provider}.
     */
    private Object runIsolated(Class<? extends PolicyProvider> provider, String method) throws Exception {
        Path serviceFile = services.resolve(provider.getSimpleName()).resolve("META-INF/services/" + PolicyProvider.class.getName());
        Files.createDirectories(serviceFile.getParent());
        Files.writeString(serviceFile, provider.getName() + "\n");
        URL modelClasses = Policies.class.getProtectionDomain().getCodeSource().getLocation();
        URL testClasses = PolicyProviderRun.class.getProtectionDomain().getCodeSource().getLocation();
        URL serviceRoot = services.resolve(provider.getSimpleName()).toUri().toURL();
        try (URLClassLoader loader = new URLClassLoader(new URL[]{modelClasses, testClasses, serviceRoot},
                ClassLoader.getPlatformClassLoader())) {
            return loader.loadClass(PolicyProviderRun.class.getName()).getMethod(method).invoke(null);
        }
    }
}
