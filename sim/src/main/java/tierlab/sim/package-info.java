/**
 * The discrete-event simulator: virtual clock, seeded randomness split per component, device
 * models, the sim and hybrid I/O backends, fault injection and workload readers. Built by the
 * simulator issue; until then this module only reserves its place in the reactor.
 */
package tierlab.sim;
