/**
 * Persistence beside the L2 file: {@link tierlab.engine.persist.IndexFile} writes the model's
 * {@link tierlab.model.l2.L2Snapshot} atomically in a versioned, checksummed binary format and reads
 * it back as Loaded, Missing or Rejected (with the reason); {@link tierlab.engine.persist.L2Identity}
 * is the identity and writing session the L2 file carries, which an index must name, and
 * {@link tierlab.engine.persist.UnitChecksums} checks each kept unit's bytes against its key, so a warm
 * restart keeps the L2 cache and a torn, foreign or stale index starts cold instead of serving wrong
 * bytes; {@link tierlab.engine.persist.L2FileLock} keeps every other run off the file (a lock on its
 * inode) while one uses it.
 */
package tierlab.engine.persist;
