package tierlab.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.CallableDeclaration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Size limits that keep the house navigable: no main source file over 500 lines in any module
 * (the store's facade may take 600), and no method or constructor over 80 lines, so a reviewer can
 * read a decision, a copy path or a command whole. Sources are parsed (JavaParser), so a method's length is its declaration's line range,
 * comments included.
 */
class SourceLimitsTest {

    static final int MAX_MAIN_FILE_LINES = 500;
    static final int MAX_STORE_FACADE_LINES = 600;
    static final int MAX_DECISION_METHOD_LINES = 80;

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Every module with main sources. */
    static final List<String> MODULES = List.of("model", "workload", "engine", "sim", "bench", "hunt",
            "spark", "experiments");

    @Test
    void noMainSourceFileIsOverItsLimit() throws IOException {
        List<String> over = new ArrayList<>();
        for (Path file : mainSources(MODULES)) {
            long lines = lineCount(file);
            long limit = MAX_MAIN_FILE_LINES;
            if (file.getFileName().toString().equals("TieredStore.java")) {
                limit = MAX_STORE_FACADE_LINES;
            }
            if (lines > limit) {
                over.add(ROOT.relativize(file) + ": " + lines + " lines (limit " + limit + ")");
            }
        }
        assertTrue(over.isEmpty(), "files over their limit:\n" + String.join("\n", over));
    }

    @Test
    void noMethodIsOver80Lines() throws IOException {
        List<String> over = new ArrayList<>();
        for (Path file : mainSources(MODULES)) {
            over.addAll(longCallables(parse(Files.readString(file), file.toString()), ROOT.relativize(file).toString()));
        }
        assertTrue(over.isEmpty(), "methods over " + MAX_DECISION_METHOD_LINES + " lines:\n" + String.join("\n", over));
    }

    /** The method rule must be able to fail: a parsed 81-line method is reported, an 80-line one is not. */
    @Test
    void theMethodRuleCatchesAnOverlongMethod() {
        String source = "class Fixture {\n" + method("longOne", MAX_DECISION_METHOD_LINES + 1)
                + method("fitting", MAX_DECISION_METHOD_LINES) + "}\n";
        List<String> found = longCallables(parse(source, "Fixture.java"), "Fixture.java");
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.getFirst().contains("longOne"), found.toString());
    }

    /** A method spanning exactly {@code lines} lines, signature and closing brace included. */
    private static String method(String name, int lines) {
        StringBuilder text = new StringBuilder("  void " + name + "() {\n");
        for (int i = 0; i < lines - 2; i++) {
            text.append("    int x").append(i).append(" = ").append(i).append(";\n");
        }
        return text.append("  }\n").toString();
    }

    private static List<String> longCallables(CompilationUnit unit, String where) {
        List<String> over = new ArrayList<>();
        for (CallableDeclaration<?> callable : unit.findAll(CallableDeclaration.class)) {
            callable.getRange().ifPresent(range -> {
                int lines = range.end.line - range.begin.line + 1;
                if (lines > MAX_DECISION_METHOD_LINES) {
                    over.add(where + ":" + range.begin.line + " " + callable.getNameAsString() + ": " + lines + " lines");
                }
            });
        }
        return over;
    }

    static CompilationUnit parse(String source, String where) {
        ParserConfiguration configuration = new ParserConfiguration()
                .setLanguageLevel(ParserConfiguration.LanguageLevel.BLEEDING_EDGE);
        ParseResult<CompilationUnit> result = new JavaParser(configuration).parse(source);
        assertTrue(result.isSuccessful() && result.getResult().isPresent(),
                where + " does not parse: " + result.getProblems());
        return result.getResult().orElseThrow();
    }

    static List<Path> mainSources(List<String> modules) throws IOException {
        List<Path> files = new ArrayList<>();
        for (String module : modules) {
            Path main = ROOT.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(main)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(main)) {
                walk.filter(path -> path.toString().endsWith(".java")).sorted().forEach(files::add);
            }
        }
        assertTrue(files.size() > 50, "found only " + files.size() + " main sources under " + ROOT);
        return files;
    }

    private static long lineCount(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
