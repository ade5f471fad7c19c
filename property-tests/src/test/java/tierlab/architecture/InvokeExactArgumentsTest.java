package tierlab.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.expr.ConditionalExpr;
import com.github.javaparser.ast.expr.EnclosedExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NullLiteralExpr;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code MethodHandle.invokeExact} takes the static type of each argument expression as the call's
 * type, and a mismatch with the handle's type fails only when the call runs: for the CUDA bindings
 * that is on a GPU host, never in CI. Two argument forms get a type other than the one they appear to
 * have: a conditional expression in an invocation context is a poly expression typed as the
 * parameter, {@code Object}, and a {@code null} literal is typed {@code Void}. Both are refused here
 * wherever they stand in an {@code invokeExact} argument list; a local of the intended type is the
 * remedy.
 */
class InvokeExactArgumentsTest {

    @Test
    void noInvokeExactArgumentIsAConditionalOrANullLiteral() throws IOException {
        List<String> found = new ArrayList<>();
        int calls = 0;
        for (Path file : SourceLimitsTest.mainSources(SourceLimitsTest.MODULES)) {
            CompilationUnit unit = SourceLimitsTest.parse(Files.readString(file), file.toString());
            calls += unit.findAll(MethodCallExpr.class, InvokeExactArgumentsTest::isInvokeExact).size();
            found.addAll(untypedArguments(unit, SourceLimitsTest.ROOT.relativize(file).toString()));
        }
        assertTrue(calls > 20, "found only " + calls + " invokeExact calls: is the source walk broken?");
        assertTrue(found.isEmpty(), "invokeExact arguments whose static type is not what they seem:\n"
                + String.join("\n", found));
    }

    @Test
    void theRuleFindsBothFormsAndLeavesPlainArgumentsAlone() {
        String source = """
                class Sample {
                    void call(java.lang.invoke.MethodHandle handle, boolean flag, Object one, Object zero) throws Throwable {
                        int a = (int) handle.invokeExact(flag ? one : zero, 3);
                        int b = (int) handle.invokeExact((flag ? 1 : 2), null);
                        int c = (int) handle.invokeExact(one, 3);
                        Object d = handle.invoke(flag ? one : zero);
                    }
                }
                """;
        List<String> found = untypedArguments(SourceLimitsTest.parse(source, "Sample"), "Sample.java");
        assertEquals(List.of("Sample.java:3: argument 1 of invokeExact is a conditional expression",
                "Sample.java:4: argument 1 of invokeExact is a conditional expression",
                "Sample.java:4: argument 2 of invokeExact is a null literal"), found);
    }

    private static boolean isInvokeExact(MethodCallExpr call) {
        return call.getNameAsString().equals("invokeExact");
    }

    private static List<String> untypedArguments(CompilationUnit unit, String where) {
        List<String> found = new ArrayList<>();
        for (MethodCallExpr call : unit.findAll(MethodCallExpr.class, InvokeExactArgumentsTest::isInvokeExact)) {
            List<Expression> arguments = call.getArguments();
            for (int i = 0; i < arguments.size(); i++) {
                Expression argument = arguments.get(i);
                while (argument instanceof EnclosedExpr enclosed) {
                    argument = enclosed.getInner();
                }
                int line = argument.getBegin().map(position -> position.line).orElse(0);
                if (argument instanceof ConditionalExpr) {
                    found.add(where + ":" + line + ": argument " + (i + 1) + " of invokeExact is a conditional expression");
                } else if (argument instanceof NullLiteralExpr) {
                    found.add(where + ":" + line + ": argument " + (i + 1) + " of invokeExact is a null literal");
                }
            }
        }
        return found;
    }
}
