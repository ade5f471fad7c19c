import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * The distribution's jar slimmer (run by tools/dist.sh as a single-file program on the build JDK).
 *
 * <p>Usage: {@code java JarSlim.java OUT_DIR REPORT ROOT_JAR... -- OTHER_JAR...}. Every class of the
 * ROOT jars (tierlab's own modules) is a root; the closure follows every class a class file names
 * (class entries of the constant pool and every {@code Lname;} in its UTF-8 entries, which covers
 * descriptors and generic signatures, so the closure is a superset of what the verifier and
 * linker can ask for), plus every class a kept jar lists in {@code META-INF/services}. Then:
 * root jars are copied whole; an OTHER jar none of whose classes is reached is left out; an OTHER
 * jar with reached classes is rewritten with only those classes (its resources are kept, except
 * those under a folder named on the command line with {@code --drop-resources=PREFIX}). Every
 * jar is written STORED (uncompressed), because the archive is compressed as a whole with xz,
 * which packs uncompressed class files far better than per-entry deflate, and because the JVM
 * then reads classes without inflating them.
 *
 * <p>Why a closure over class files and not a list of packages: Tablesaw pulls in fastutil (23 MB)
 * and icu4j (14 MB) for a handful of classes; the closure keeps exactly those, and it errs on the
 * side of keeping (a name seen anywhere in a class file keeps the class). Reflection by name is
 * the one thing it cannot see; the archive test and a run of every catalogue experiment from the
 * archive are what prove the result complete (docs/distribution.md).
 */
public final class JarSlim {
    private static final Pattern CLASS_IN_DESCRIPTOR = Pattern.compile("L([A-Za-z_$][\\w$/]*);");

    private JarSlim() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: java JarSlim.java OUT_DIR REPORT [--drop-resources=PREFIX]... ROOT_JAR... -- OTHER_JAR...");
            System.exit(2);
        }
        Path outDir = Path.of(args[0]);
        Path report = Path.of(args[1]);
        List<Path> roots = new ArrayList<>();
        List<Path> others = new ArrayList<>();
        List<String> dropPrefixes = new ArrayList<>();
        boolean inOthers = false;
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("--")) {
                inOthers = true;
            } else if (args[i].startsWith("--drop-resources=")) {
                dropPrefixes.add(args[i].substring("--drop-resources=".length()));
            } else {
                (inOthers ? others : roots).add(Path.of(args[i]));
            }
        }
        Files.createDirectories(outDir);

        // Which jar defines which class (the first on the list wins, as on a class path).
        Map<String, Path> owner = new LinkedHashMap<>();
        Map<Path, List<String>> classesOf = new LinkedHashMap<>();
        Map<Path, Map<String, List<String>>> entriesOf = new LinkedHashMap<>();
        for (Path jar : concat(roots, others)) {
            List<String> names = new ArrayList<>();
            Map<String, List<String>> entries = new TreeMap<>();
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                zip.stream().filter(e -> isClassFile(e.getName())).forEach(e -> {
                    String name = className(e.getName());
                    if (!entries.containsKey(name)) {
                        names.add(name);
                    }
                    entries.computeIfAbsent(name, k -> new ArrayList<>()).add(e.getName());
                    owner.putIfAbsent(name, jar);
                });
            }
            classesOf.put(jar, names);
            entriesOf.put(jar, entries);
        }

        TreeSet<String> reached = new TreeSet<>();
        Deque<String> work = new ArrayDeque<>();
        for (Path jar : roots) {
            for (String name : classesOf.get(jar)) {
                enqueue(name, reached, work);
            }
        }
        Map<Path, ZipFile> open = new LinkedHashMap<>();
        try {
            for (Path jar : concat(roots, others)) {
                open.put(jar, new ZipFile(jar.toFile()));
            }
            boolean changed = true;
            TreeSet<Path> servicesRead = new TreeSet<>();
            while (changed) {
                while (!work.isEmpty()) {
                    String name = work.pop();
                    Path jar = owner.get(name);
                    if (jar == null) {
                        continue; // a JDK class, or one no jar defines (an optional dependency)
                    }
                    for (String referenced : referencedClasses(open.get(jar), entriesOf.get(jar).get(name))) {
                        enqueue(referenced, reached, work);
                    }
                }
                // A jar with reached classes may register services; their implementations are
                // loaded by name (ServiceLoader), which the closure cannot see, so they are roots.
                changed = false;
                for (Path jar : concat(roots, others)) {
                    if (servicesRead.contains(jar) || !anyReached(classesOf.get(jar), reached)) {
                        continue;
                    }
                    servicesRead.add(jar);
                    for (String impl : serviceImplementations(open.get(jar))) {
                        if (enqueue(impl, reached, work)) {
                            changed = true;
                        }
                    }
                }
            }

            StringBuilder lines = new StringBuilder("jar\tclasses_kept\tclasses_total\tbytes_in\tbytes_out\n");
            for (Path jar : concat(roots, others)) {
                boolean root = roots.contains(jar);
                List<String> all = classesOf.get(jar);
                long kept = all.stream().filter(reached::contains).count();
                long bytesIn = Files.size(jar);
                if (!root && kept == 0) {
                    lines.append(jar.getFileName()).append("\t0\t").append(all.size()).append('\t')
                            .append(bytesIn).append("\t0 (left out)\n");
                    continue;
                }
                Path target = outDir.resolve(jar.getFileName());
                writeStored(open.get(jar), target, entry -> {
                    if (isClassFile(entry)) {
                        return root || reached.contains(className(entry));
                    }
                    // A cut-down jar's module descriptor would name packages it no longer has; the
                    // archive runs every jar on the class path, where descriptors are not read anyway.
                    if (entry.endsWith("module-info.class")) {
                        return root;
                    }
                    return root || dropPrefixes.stream().noneMatch(entry::startsWith);
                });
                lines.append(jar.getFileName()).append('\t').append(kept).append('\t').append(all.size())
                        .append('\t').append(bytesIn).append('\t').append(Files.size(target)).append('\n');
            }
            Files.writeString(report, lines.toString(), StandardCharsets.UTF_8);
        } finally {
            for (ZipFile zip : open.values()) {
                zip.close();
            }
        }
    }

    private static List<Path> concat(List<Path> a, List<Path> b) {
        List<Path> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static boolean enqueue(String name, TreeSet<String> reached, Deque<String> work) {
        if (reached.add(name)) {
            work.push(name);
            return true;
        }
        return false;
    }

    private static boolean anyReached(List<String> names, TreeSet<String> reached) {
        for (String name : names) {
            if (reached.contains(name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isClassFile(String entry) {
        return entry.endsWith(".class") && !entry.endsWith("module-info.class");
    }

    /** The binary name of a class file entry, also for multi-release entries (META-INF/versions/N/...). */
    private static String className(String entry) {
        String path = entry;
        if (path.startsWith("META-INF/versions/")) {
            int slash = path.indexOf('/', "META-INF/versions/".length());
            path = path.substring(slash + 1);
        }
        return path.substring(0, path.length() - ".class".length());
    }

    /** Every class the class files of {@code name} (all its multi-release variants, given as entry names) name. */
    private static List<String> referencedClasses(ZipFile zip, List<String> entryNames) {
        List<String> found = new ArrayList<>();
        for (String entryName : entryNames) {
            try {
                ClassModel model = ClassFile.of().parse(zip.getInputStream(zip.getEntry(entryName)).readAllBytes());
                for (PoolEntry entry : model.constantPool()) {
                    if (entry instanceof ClassEntry c) {
                        String internal = c.asInternalName();
                        // Arrays appear as descriptors ("[Lfoo/Bar;"); the Utf8 scan below catches them.
                        if (!internal.startsWith("[")) {
                            found.add(internal);
                        }
                    } else if (entry instanceof Utf8Entry u) {
                        Matcher m = CLASS_IN_DESCRIPTOR.matcher(u.stringValue());
                        while (m.find()) {
                            found.add(m.group(1));
                        }
                    }
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return found;
    }

    private static List<String> serviceImplementations(ZipFile zip) {
        List<String> found = new ArrayList<>();
        zip.stream().filter(e -> e.getName().startsWith("META-INF/services/") && !e.isDirectory()).forEach(e -> {
            try {
                String text = new String(zip.getInputStream(e).readAllBytes(), StandardCharsets.UTF_8);
                for (String line : text.split("\n")) {
                    String impl = line.replaceAll("#.*", "").trim();
                    if (!impl.isEmpty()) {
                        found.add(impl.replace('.', '/'));
                    }
                }
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        });
        return found;
    }

    private interface EntryFilter {
        boolean keep(String entry);
    }

    /** Copies the kept entries into a STORED jar, in name order so that two builds give the same bytes. */
    private static void writeStored(ZipFile zip, Path target, EntryFilter filter) throws IOException {
        TreeMap<String, ZipEntry> kept = new TreeMap<>();
        zip.stream().filter(e -> !e.isDirectory() && filter.keep(e.getName())).forEach(e -> kept.put(e.getName(), e));
        // The manifest first, as java.util.jar expects.
        List<String> order = new ArrayList<>();
        if (kept.containsKey("META-INF/MANIFEST.MF")) {
            order.add("META-INF/MANIFEST.MF");
        }
        for (String name : kept.keySet()) {
            if (!name.equals("META-INF/MANIFEST.MF")) {
                order.add(name);
            }
        }
        try (OutputStream file = Files.newOutputStream(target); ZipOutputStream out = new ZipOutputStream(file)) {
            for (String name : order) {
                byte[] bytes = zip.getInputStream(kept.get(name)).readAllBytes();
                // Signatures of a signed jar no longer match a rewritten one; none of ours is signed,
                // and a stale one would make the JVM refuse the jar, so they never travel.
                if (name.startsWith("META-INF/") && (name.endsWith(".SF") || name.endsWith(".RSA") || name.endsWith(".DSA"))) {
                    continue;
                }
                ZipEntry stored = new ZipEntry(name);
                stored.setMethod(ZipEntry.STORED);
                stored.setSize(bytes.length);
                stored.setCompressedSize(bytes.length);
                CRC32 crc = new CRC32();
                crc.update(bytes);
                stored.setCrc(crc.getValue());
                stored.setTime(315532800000L); // 1980-01-01: the same bytes from every build
                out.putNextEntry(stored);
                out.write(bytes);
                out.closeEntry();
            }
        }
    }
}
