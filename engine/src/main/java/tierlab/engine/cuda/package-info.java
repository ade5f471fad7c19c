/**
 * The CUDA runtime (libcudart) bound through the FFM API, and the live copy port over it: pinned
 * L1 memory, GPU KV blocks in device memory, separate host-to-device and device-to-host streams,
 * completions polled from events and handed to the model as completion events, like io_uring's.
 * docs/cuda.md says what is bound and where every layout and value comes from.
 */
package tierlab.engine.cuda;
