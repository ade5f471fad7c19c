package tierlab.engine.cuda.compute;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/** One loaded shared library and its downcalls, for the bindings of this package. */
@SuppressWarnings("restricted") // the bindings' downcalls are the point
final class Downcalls {

    private static final Linker LINKER = Linker.nativeLinker();

    private final String name;
    private final SymbolLookup lookup;

    private Downcalls(String name, SymbolLookup lookup) {
        this.name = name;
        this.lookup = lookup;
    }

    /**
     * Loads {@code library} (a file, or a bare soname the dynamic loader searches for).
     *
     * @throws IllegalArgumentException when it cannot be loaded (the message names it)
     */
    static Downcalls load(Path library) {
        try {
            boolean bare = library.getParent() == null;
            SymbolLookup lookup = bare ? SymbolLookup.libraryLookup(library.toString(), Arena.global())
                    : SymbolLookup.libraryLookup(library, Arena.global());
            return new Downcalls(library.toString(), lookup);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot load " + library + ": " + e.getMessage(), e);
        }
    }

    MethodHandle bind(String symbol, FunctionDescriptor descriptor) {
        MemorySegment address = lookup.find(symbol)
                .orElseThrow(() -> new IllegalArgumentException(name + " has no symbol " + symbol));
        return LINKER.downcallHandle(address, descriptor);
    }

    boolean has(String symbol) {
        return lookup.find(symbol).isPresent();
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    static String cString(MemorySegment pointer) {
        return pointer.equals(MemorySegment.NULL) ? null : pointer.reinterpret(4096).getString(0);
    }
}
