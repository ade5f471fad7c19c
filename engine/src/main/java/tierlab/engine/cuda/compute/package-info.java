/**
 * Real GPU compute for live mode: FFM bindings to cuBLAS, NVRTC and the CUDA driver API (found at run
 * time beside libcudart, nothing linked at build time), the forward pass's own kernels compiled from a
 * resource by NVRTC, a model-shaped forward pass over paged KV blocks, its step benchmark, and the
 * compute port that runs it per engine step (docs/cuda.md, "The compute port").
 */
package tierlab.engine.cuda.compute;
