package tierlab.engine.cuda.compute;

/**
 * Which attention kernels a forward pass launches: {@code REFERENCE} the first kernels (one token per warp
 * in decode), kept so that one GPU run measures both and a defect in the new path loses no run; {@code FAST}
 * the flash-decoding kernel {@code attn_decode_fast} (prefill is the same in both paths for now).
 */
public enum AttentionPath {
    REFERENCE,
    FAST
}
