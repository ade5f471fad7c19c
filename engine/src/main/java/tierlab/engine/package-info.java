/**
 * The live side of tierlab: the io_uring engine over Java's FFM API, the pinned L1 arena, a
 * FileChannel fallback backend, and the live runtime that feeds real completions to the model.
 * Built by the engine issue; until then this module only reserves its place in the reactor.
 */
package tierlab.engine;
