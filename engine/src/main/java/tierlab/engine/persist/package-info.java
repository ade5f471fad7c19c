/**
 * Persistence beside the L2 file: {@link tierlab.engine.persist.IndexFile} writes the model's
 * {@link tierlab.model.l2.L2Snapshot} atomically in a versioned, checksummed binary format and reads
 * it back as Loaded, Missing or Rejected (with the reason), so a warm restart keeps the L2 cache and
 * a torn or foreign file starts cold.
 */
package tierlab.engine.persist;
