// The forward pass's kernels that cuBLAS lacks, compiled at run time by NVRTC for the device's own
// architecture. No #include: NVRTC is given no headers, so bf16 travels as unsigned short and is
// converted by hand (bf16 is the top half of an fp32). HEAD_DIM (a multiple of 32) and GROUP (query
// heads per KV head) come in as -D options, so the per-lane register arrays have fixed sizes.
// No rotary embedding is applied: it is elementwise work beside the GEMMs and attention and does not
// change what is read or computed in them.
//
// KV block layout (one block of BLOCK tokens, one tensor-parallel lane): layer-major, and within a
// layer K then V, each [token in block][kv head][HEAD_DIM] bf16. A block table holds each block's
// device address; layerOffset selects a layer inside it (0 when one layer's KV is reused).

#ifndef HEAD_DIM
#define HEAD_DIM 128
#endif
#ifndef GROUP
#define GROUP 4
#endif
#define DPL (HEAD_DIM / 32)

typedef unsigned short bf16;
typedef unsigned long long u64;
// Sixteen bytes moved as one load and one store (both ends 16-byte aligned: HEAD_DIM rows of bf16).
struct __attribute__((aligned(16))) Piece16 { unsigned int a, b, c, d; };

__device__ __forceinline__ float bf2f(bf16 h) { return __uint_as_float(((unsigned int) h) << 16); }

__device__ __forceinline__ bf16 f2bf(float f) {
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7f800000u) == 0x7f800000u) { return (bf16) (u >> 16); }   // inf and NaN kept as they are
    u += 0x7fffu + ((u >> 16) & 1u);                                     // round to nearest even
    return (bf16) (u >> 16);
}

__device__ __forceinline__ float warpSum(float v) {
    for (int o = 16; o > 0; o >>= 1) { v += __shfl_xor_sync(0xffffffffu, v, o); }
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
    for (int o = 16; o > 0; o >>= 1) { v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o)); }
    return v;
}

// A block-wide sum (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
__device__ float blockSum(float v, float* scratch) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warpSum(v);
    __syncthreads();
    if (lane == 0) { scratch[warp] = v; }
    __syncthreads();
    float t = lane < warps ? scratch[lane] : 0.0f;
    return warpSum(t);
}

// Random weights: a hash of the index, uniform with standard deviation `scale`.
extern "C" __global__ void fill_random(bf16* out, u64 n, unsigned int seed, float scale) {
    for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < n; i += (u64) gridDim.x * blockDim.x) {
        unsigned int h = (unsigned int) i * 0x9E3779B1u ^ (unsigned int) (i >> 32) * 0x85EBCA77u ^ seed;
        h ^= h >> 16; h *= 0x7feb352du; h ^= h >> 15; h *= 0x846ca68bu; h ^= h >> 16;
        float u = (h >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
        out[i] = f2bf(u * scale * 1.7320508f);
    }
}

extern "C" __global__ void fill_value(bf16* out, u64 n, float value) {
    bf16 v = f2bf(value);
    for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < n; i += (u64) gridDim.x * blockDim.x) {
        out[i] = v;
    }
}

// y[r] = x[row(r)] / rms(x[row(r)]) * w; row(r) = rows[r] when rows is given (the final norm over each
// sequence's last token), else r. One block per output row.
extern "C" __global__ void rmsnorm(const bf16* x, const bf16* w, bf16* y, int hidden, float eps, const int* rows) {
    __shared__ float scratch[32];
    int r = blockIdx.x;
    const bf16* in = x + (u64) (rows ? rows[r] : r) * hidden;
    float ss = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) { float v = bf2f(in[i]); ss += v * v; }
    float inv = rsqrtf(blockSum(ss, scratch) / hidden + eps);
    bf16* out = y + (u64) r * hidden;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) { out[i] = f2bf(bf2f(in[i]) * inv * bf2f(w[i])); }
}

// act[t][c] = silu(gate) * up, gate and up the two halves of the fused gate/up GEMM's row.
extern "C" __global__ void swiglu(const bf16* gu, bf16* act, int inter, u64 total) {
    for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < total; i += (u64) gridDim.x * blockDim.x) {
        u64 t = i / inter, c = i - t * inter;
        float g = bf2f(gu[t * 2 * inter + c]), u = bf2f(gu[t * 2 * inter + inter + c]);
        act[i] = f2bf(g / (1.0f + __expf(-g)) * u);
    }
}

__device__ __forceinline__ char* kvRow(const u64* table, int pos, int block, int kvHeads, long long layerOffset,
                                       int v, int head) {
    char* base = (char*) table[pos / block] + layerOffset;
    return base + ((u64) v * block * kvHeads + (u64) (pos % block) * kvHeads + head) * HEAD_DIM * 2;
}

// Writes each new token's K and V (columns after the queries of the fused QKV row) into its KV block.
// One block per new token; threads over kvHeads * HEAD_DIM / 8 sixteen-byte pieces, for K and V.
extern "C" __global__ void kv_scatter(const bf16* qkv, int qkvStride, int qHeads, int kvHeads, const int* tokenSeq,
                                      const int* tokenPos, const u64* tables, int maxBlocks, int block,
                                      long long layerOffset) {
    int t = blockIdx.x, s = tokenSeq[t], pos = tokenPos[t];
    const u64* table = tables + (u64) s * maxBlocks;
    int pieces = kvHeads * HEAD_DIM / 8;
    for (int i = threadIdx.x; i < 2 * pieces; i += blockDim.x) {
        int v = i / pieces, p = i - v * pieces, head = p / (HEAD_DIM / 8), e = (p % (HEAD_DIM / 8)) * 8;
        const bf16* src = qkv + (u64) t * qkvStride + (qHeads + v * kvHeads + head) * HEAD_DIM + e;
        char* dst = kvRow(table, pos, block, kvHeads, layerOffset, v, head) + e * 2;
        *(Piece16*) dst = *(const Piece16*) src;
    }
}

// Decode attention, split over the context (flash-decoding): block (split, kv head, sequence), 4 warps;
// each warp takes every 4th token of the split's slice and keeps an online softmax for the GROUP query
// heads of this KV head, each lane holding DPL dimensions. Partial results go to partO/partML.
extern "C" __global__ void attn_decode(const bf16* qkv, int qkvStride, int kvHeads, const int* qRow,
                                       const int* seqLen, const u64* tables, int maxBlocks, int block,
                                       long long layerOffset, int splitTokens, float scale, float* partO,
                                       float* partML) {
    __shared__ float shM[4][GROUP], shL[4][GROUP];
    __shared__ float shO[4][GROUP][HEAD_DIM];
    int split = blockIdx.x, kvh = blockIdx.y, s = blockIdx.z, splits = gridDim.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int len = seqLen[s], start = split * splitTokens, end = min(len, start + splitTokens);
    const u64* table = tables + (u64) s * maxBlocks;
    float q[GROUP][DPL], acc[GROUP][DPL], m[GROUP], l[GROUP];
    const bf16* qbase = qkv + (u64) qRow[s] * qkvStride + kvh * GROUP * HEAD_DIM;
    for (int h = 0; h < GROUP; h++) {
        for (int i = 0; i < DPL; i++) { q[h][i] = bf2f(qbase[h * HEAD_DIM + lane * DPL + i]) * scale; acc[h][i] = 0.0f; }
        m[h] = -1e30f; l[h] = 0.0f;
    }
    for (int pos = start + warp; pos < end; pos += 4) {
        const bf16* k = (const bf16*) kvRow(table, pos, block, kvHeads, layerOffset, 0, kvh) + lane * DPL;
        const bf16* v = (const bf16*) kvRow(table, pos, block, kvHeads, layerOffset, 1, kvh) + lane * DPL;
        float kf[DPL], vf[DPL];
        for (int i = 0; i < DPL; i++) { kf[i] = bf2f(k[i]); vf[i] = bf2f(v[i]); }
        for (int h = 0; h < GROUP; h++) {
            float d = 0.0f;
            for (int i = 0; i < DPL; i++) { d += q[h][i] * kf[i]; }
            d = warpSum(d);
            float mNew = fmaxf(m[h], d), corr = __expf(m[h] - mNew), p = __expf(d - mNew);
            l[h] = l[h] * corr + p;
            for (int i = 0; i < DPL; i++) { acc[h][i] = acc[h][i] * corr + p * vf[i]; }
            m[h] = mNew;
        }
    }
    for (int h = 0; h < GROUP; h++) {
        if (lane == 0) { shM[warp][h] = m[h]; shL[warp][h] = l[h]; }
        for (int i = 0; i < DPL; i++) { shO[warp][h][lane * DPL + i] = acc[h][i]; }
    }
    __syncthreads();
    u64 part = ((u64) s * kvHeads + kvh) * splits + split;
    for (int j = threadIdx.x; j < GROUP * HEAD_DIM; j += blockDim.x) {
        int h = j / HEAD_DIM, e = j - h * HEAD_DIM;
        float mAll = fmaxf(fmaxf(shM[0][h], shM[1][h]), fmaxf(shM[2][h], shM[3][h]));
        float o = 0.0f, lAll = 0.0f;
        for (int w = 0; w < 4; w++) { float c = __expf(shM[w][h] - mAll); o += shO[w][h][e] * c; lAll += shL[w][h] * c; }
        partO[part * GROUP * HEAD_DIM + j] = o;
        if (e == 0) { partML[(part * GROUP + h) * 2] = mAll; partML[(part * GROUP + h) * 2 + 1] = lAll; }
    }
}

// Decode attention, the fast path: bandwidth-bound flash-decoding. Block (split, kv head, sequence) of
// DEC_WARPS warps. A token's K (and V) row of HEAD_DIM bf16 is read by DEC_LANES lanes, 16 bytes each, so a
// warp holds DEC_TPW tokens side by side and each lane group issues DEC_UNROLL tokens' loads before it uses
// any of them: DEC_TPW * DEC_UNROLL rows of K and V in flight per warp. K and V of a token are read once for
// all GROUP query heads. The scores of the DEC_UNROLL tokens are reduced over the lane group (log2 DEC_LANES
// shuffles, independent across tokens and heads) and enter the online softmax together: one rescale of the
// accumulator per DEC_UNROLL tokens instead of one per token. The lane groups of a warp are merged by
// shuffles, the warps through shared memory; partial results have attn_decode's layout, so
// attn_decode_reduce combines either kernel's splits. Needs HEAD_DIM / 8 a power of two up to 32 (the host
// falls back to attn_decode otherwise).
#define DEC_WARPS 4
#define DEC_UNROLL 4
#define DEC_LANES (HEAD_DIM / 8 < 32 ? HEAD_DIM / 8 : 32)
#define DEC_TPW (32 / DEC_LANES)
#define DEC_DPL (HEAD_DIM / DEC_LANES)
#define DEC_PIECES (DEC_DPL / 8)

__device__ __forceinline__ void unpack8(const Piece16& p, float* f) {
    unsigned int w[4] = {p.a, p.b, p.c, p.d};
    for (int j = 0; j < 4; j++) { f[2 * j] = __uint_as_float(w[j] << 16); f[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u); }
}

extern "C" __global__ void __launch_bounds__(DEC_WARPS * 32) attn_decode_fast(const bf16* qkv, int qkvStride,
        int kvHeads, const int* qRow, const int* seqLen, const u64* tables, int maxBlocks, int block,
        long long layerOffset, int splitTokens, float scale, float* partO, float* partML) {
    __shared__ float shM[DEC_WARPS][GROUP], shL[DEC_WARPS][GROUP];
    __shared__ float shO[DEC_WARPS][GROUP][HEAD_DIM];
    int split = blockIdx.x, kvh = blockIdx.y, s = blockIdx.z, splits = gridDim.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int sub = lane / DEC_LANES, part = lane % DEC_LANES;
    int len = seqLen[s], start = split * splitTokens, end = min(len, start + splitTokens);
    const u64* table = tables + (u64) s * maxBlocks;
    float q[GROUP][DEC_DPL], acc[GROUP][DEC_DPL], m[GROUP], l[GROUP];
    const bf16* qbase = qkv + (u64) qRow[s] * qkvStride + kvh * GROUP * HEAD_DIM + part * DEC_DPL;
    for (int h = 0; h < GROUP; h++) {
        for (int i = 0; i < DEC_DPL; i++) { q[h][i] = bf2f(qbase[h * HEAD_DIM + i]) * scale; acc[h][i] = 0.0f; }
        m[h] = -1e30f; l[h] = 0.0f;
    }
    const int stride = DEC_WARPS * DEC_TPW;
    // The loop's bound is the warp's first token, the same for all its lanes, so the shuffles see full warps.
    for (int warpFirst = start + warp * DEC_TPW; warpFirst < end; warpFirst += stride * DEC_UNROLL) {
        Piece16 kp[DEC_UNROLL][DEC_PIECES], vp[DEC_UNROLL][DEC_PIECES];
        bool live[DEC_UNROLL];
        for (int u = 0; u < DEC_UNROLL; u++) {
            int pos = warpFirst + sub + u * stride;
            live[u] = pos < end;
            if (live[u]) {
                const Piece16* k = (const Piece16*) kvRow(table, pos, block, kvHeads, layerOffset, 0, kvh) + part * DEC_PIECES;
                const Piece16* v = (const Piece16*) kvRow(table, pos, block, kvHeads, layerOffset, 1, kvh) + part * DEC_PIECES;
                for (int c = 0; c < DEC_PIECES; c++) { kp[u][c] = k[c]; vp[u][c] = v[c]; }
            } else {
                for (int c = 0; c < DEC_PIECES; c++) { kp[u][c] = Piece16{0u, 0u, 0u, 0u}; vp[u][c] = kp[u][c]; }
            }
        }
        float score[DEC_UNROLL][GROUP];
        for (int u = 0; u < DEC_UNROLL; u++) {
            float kf[DEC_DPL];
            for (int c = 0; c < DEC_PIECES; c++) { unpack8(kp[u][c], kf + 8 * c); }
            for (int h = 0; h < GROUP; h++) {
                float d = 0.0f;
                for (int i = 0; i < DEC_DPL; i++) { d += q[h][i] * kf[i]; }
                score[u][h] = d;
            }
        }
        for (int o = DEC_LANES / 2; o > 0; o >>= 1) {
            for (int u = 0; u < DEC_UNROLL; u++) {
                for (int h = 0; h < GROUP; h++) { score[u][h] += __shfl_xor_sync(0xffffffffu, score[u][h], o); }
            }
        }
        for (int h = 0; h < GROUP; h++) {
            float mNew = m[h];
            for (int u = 0; u < DEC_UNROLL; u++) { if (live[u]) { mNew = fmaxf(mNew, score[u][h]); } }
            float corr = __expf(m[h] - mNew);
            l[h] *= corr;
            for (int i = 0; i < DEC_DPL; i++) { acc[h][i] *= corr; }
            m[h] = mNew;
            for (int u = 0; u < DEC_UNROLL; u++) { score[u][h] = live[u] ? __expf(score[u][h] - mNew) : 0.0f; l[h] += score[u][h]; }
        }
        for (int u = 0; u < DEC_UNROLL; u++) {
            if (!live[u]) { continue; }
            float vf[DEC_DPL];
            for (int c = 0; c < DEC_PIECES; c++) { unpack8(vp[u][c], vf + 8 * c); }
            for (int h = 0; h < GROUP; h++) {
                for (int i = 0; i < DEC_DPL; i++) { acc[h][i] += score[u][h] * vf[i]; }
            }
        }
    }
    // The DEC_TPW lane groups of a warp hold the same dimensions of different tokens: merge them pairwise.
    for (int o = DEC_LANES; o < 32; o <<= 1) {
        for (int h = 0; h < GROUP; h++) {
            float mo = __shfl_xor_sync(0xffffffffu, m[h], o), lo = __shfl_xor_sync(0xffffffffu, l[h], o);
            float mNew = fmaxf(m[h], mo), cMine = __expf(m[h] - mNew), cOther = __expf(mo - mNew);
            l[h] = l[h] * cMine + lo * cOther;
            for (int i = 0; i < DEC_DPL; i++) {
                float other = __shfl_xor_sync(0xffffffffu, acc[h][i], o);
                acc[h][i] = acc[h][i] * cMine + other * cOther;
            }
            m[h] = mNew;
        }
    }
    if (sub == 0) {
        for (int h = 0; h < GROUP; h++) {
            if (lane == 0) { shM[warp][h] = m[h]; shL[warp][h] = l[h]; }
            for (int i = 0; i < DEC_DPL; i++) { shO[warp][h][part * DEC_DPL + i] = acc[h][i]; }
        }
    }
    __syncthreads();
    u64 partIndex = ((u64) s * kvHeads + kvh) * splits + split;
    for (int j = threadIdx.x; j < GROUP * HEAD_DIM; j += blockDim.x) {
        int h = j / HEAD_DIM, e = j - h * HEAD_DIM;
        float mAll = shM[0][h];
        for (int w = 1; w < DEC_WARPS; w++) { mAll = fmaxf(mAll, shM[w][h]); }
        float o = 0.0f, lAll = 0.0f;
        for (int w = 0; w < DEC_WARPS; w++) { float c = __expf(shM[w][h] - mAll); o += shO[w][h][e] * c; lAll += shL[w][h] * c; }
        partO[partIndex * GROUP * HEAD_DIM + j] = o;
        if (e == 0) { partML[(partIndex * GROUP + h) * 2] = mAll; partML[(partIndex * GROUP + h) * 2 + 1] = lAll; }
    }
}

// Combines the splits of attn_decode into the attention output row [qHeads * HEAD_DIM] of each sequence.
// Block (kv head, sequence), HEAD_DIM threads.
extern "C" __global__ void attn_decode_reduce(const float* partO, const float* partML, int splits, int kvHeads,
                                              const int* qRow, bf16* out) {
    int kvh = blockIdx.x, s = blockIdx.y, e = threadIdx.x;
    u64 first = ((u64) s * kvHeads + kvh) * splits;
    for (int h = 0; h < GROUP; h++) {
        float mAll = -1e30f;
        for (int p = 0; p < splits; p++) { mAll = fmaxf(mAll, partML[((first + p) * GROUP + h) * 2]); }
        float o = 0.0f, lAll = 0.0f;
        for (int p = 0; p < splits; p++) {
            float c = __expf(partML[((first + p) * GROUP + h) * 2] - mAll);
            o += partO[((first + p) * GROUP + h) * HEAD_DIM + e] * c;
            lAll += partML[((first + p) * GROUP + h) * 2 + 1] * c;
        }
        out[(u64) qRow[s] * kvHeads * GROUP * HEAD_DIM + (kvh * GROUP + h) * HEAD_DIM + e] = f2bf(lAll > 0.0f ? o / lAll : 0.0f);
    }
}

// Prefill: one sequence's K and V (tokens [0, tokens)) gathered from its blocks into [kv head][token][HEAD_DIM]
// each, the operands of the batched GEMMs. One block per token.
extern "C" __global__ void kv_gather(const u64* table, int block, int kvHeads, long long layerOffset, int tokens,
                                     bf16* kOut, bf16* vOut) {
    int pos = blockIdx.x;
    int pieces = kvHeads * HEAD_DIM / 8;
    for (int i = threadIdx.x; i < 2 * pieces; i += blockDim.x) {
        int v = i / pieces, p = i - v * pieces, head = p / (HEAD_DIM / 8), e = (p % (HEAD_DIM / 8)) * 8;
        const char* src = kvRow(table, pos, block, kvHeads, layerOffset, v, head) + e * 2;
        bf16* dst = (v ? vOut : kOut) + ((u64) head * tokens + pos) * HEAD_DIM + e;
        *(Piece16*) dst = *(const Piece16*) src;
    }
}

// The queries of rows [row0, row0 + count) rearranged to [kv head][token * GROUP + head in group][HEAD_DIM],
// so that one GEMM per KV head covers its whole query group.
extern "C" __global__ void q_gather(const bf16* qkv, int qkvStride, int kvHeads, int row0, int count, bf16* qOut) {
    int t = blockIdx.x;
    int pieces = kvHeads * GROUP * HEAD_DIM / 8;
    for (int i = threadIdx.x; i < pieces; i += blockDim.x) {
        int qh = i / (HEAD_DIM / 8), e = (i % (HEAD_DIM / 8)) * 8, kvh = qh / GROUP, hi = qh - kvh * GROUP;
        const bf16* src = qkv + (u64) (row0 + t) * qkvStride + qh * HEAD_DIM + e;
        bf16* dst = qOut + (((u64) kvh * count + t) * GROUP + hi) * HEAD_DIM + e;
        *(Piece16*) dst = *(const Piece16*) src;
    }
}

// The masked softmax of the scores [kv head][row][keys] in place: row r is query token r / GROUP at
// position firstPos + r / GROUP, which sees keys [0, position]; the keys after it are set to 0.
extern "C" __global__ void softmax_causal(bf16* scores, int rows, int keys, int firstPos) {
    __shared__ float scratch[32];
    __shared__ float shared[2];
    int r = blockIdx.x;
    bf16* row = scores + ((u64) blockIdx.y * rows + r) * keys;
    int visible = min(keys, firstPos + r / GROUP + 1);
    float mx = -1e30f;
    for (int k = threadIdx.x; k < visible; k += blockDim.x) { mx = fmaxf(mx, bf2f(row[k])); }
    mx = warpMax(mx);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) { scratch[threadIdx.x >> 5] = mx; }
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < (blockDim.x >> 5) ? scratch[threadIdx.x] : -1e30f;
        t = warpMax(t);
        if (threadIdx.x == 0) { shared[0] = t; }
    }
    __syncthreads();
    mx = shared[0];
    float sum = 0.0f;
    for (int k = threadIdx.x; k < visible; k += blockDim.x) { sum += __expf(bf2f(row[k]) - mx); }
    sum = blockSum(sum, scratch);
    float inv = 1.0f / sum;
    for (int k = threadIdx.x; k < keys; k += blockDim.x) {
        row[k] = k < visible ? f2bf(__expf(bf2f(row[k]) - mx) * inv) : (bf16) 0;
    }
}

// The attention output of rows [row0, row0 + count) back from [kv head][token * GROUP + h][HEAD_DIM] to the
// token-major [row][qHeads * HEAD_DIM] the O projection reads.
extern "C" __global__ void o_scatter(const bf16* oIn, int kvHeads, int row0, int count, bf16* out) {
    int t = blockIdx.x;
    int pieces = kvHeads * GROUP * HEAD_DIM / 8;
    for (int i = threadIdx.x; i < pieces; i += blockDim.x) {
        int qh = i / (HEAD_DIM / 8), e = (i % (HEAD_DIM / 8)) * 8, kvh = qh / GROUP, hi = qh - kvh * GROUP;
        const bf16* src = oIn + (((u64) kvh * count + t) * GROUP + hi) * HEAD_DIM + e;
        bf16* dst = out + (u64) (row0 + t) * kvHeads * GROUP * HEAD_DIM + qh * HEAD_DIM + e;
        *(Piece16*) dst = *(const Piece16*) src;
    }
}

// The sampled token of each sequence: the argmax of its logits row (one block per sequence).
extern "C" __global__ void argmax_rows(const bf16* logits, int vocab, int* tokens) {
    __shared__ float bestV[32];
    __shared__ int bestI[32];
    const bf16* row = logits + (u64) blockIdx.x * vocab;
    float bv = -3.0e38f;
    int bi = 0;
    for (int i = threadIdx.x; i < vocab; i += blockDim.x) { float v = bf2f(row[i]); if (v > bv) { bv = v; bi = i; } }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, bv, o);
        int oi = __shfl_xor_sync(0xffffffffu, bi, o);
        if (ov > bv || (ov == bv && oi < bi)) { bv = ov; bi = oi; }
    }
    if ((threadIdx.x & 31) == 0) { bestV[threadIdx.x >> 5] = bv; bestI[threadIdx.x >> 5] = bi; }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int) (blockDim.x >> 5); w++) {
            if (bestV[w] > bv || (bestV[w] == bv && bestI[w] < bi)) { bv = bestV[w]; bi = bestI[w]; }
        }
        tokens[blockIdx.x] = bi;
    }
}
