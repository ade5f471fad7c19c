package tierlab.engine.uring;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * The io_uring kernel ABI as named byte offsets. Every constant cites the field of
 * {@code linux/io_uring.h} (uapi, checked against the header shipped with Debian bookworm's
 * linux-libc-dev and against a 6.18 kernel) that it mirrors. The ABI is append-only, so these
 * offsets hold on every kernel since 5.1; newer fields live in what was {@code resv}.
 *
 * <p>The structs are also described as {@link StructLayout}s ({@link #PARAMS}, {@link #SQE},
 * {@link #CQE}) so a test can check each hand-written offset against the layout's computed one;
 * the hot path uses the plain constants.
 */
public final class IoUringLayout {

    private IoUringLayout() {}

    // ---- struct io_uring_params (io_uring_setup(2) argument, copied back filled in) ---------------
    //
    //  0        4        8        12            16             20        24      28             40
    //  +--------+--------+--------+-------------+--------------+---------+-------+--------------+
    //  |sq_     |cq_     |flags   |sq_thread_cpu|sq_thread_idle|features |wq_fd  | resv[3]      |
    //  |entries |entries |        |             |              |         |       |              |
    //  +--------+--------+--------+-------------+--------------+---------+-------+--------------+
    //  40                                       80                                            120
    //  +----------------------------------------+----------------------------------------------+
    //  | struct io_sqring_offsets sq_off (40 B)  | struct io_cqring_offsets cq_off (40 B)        |
    //  +----------------------------------------+----------------------------------------------+

    /** sizeof(struct io_uring_params): 10 × __u32 + 2 × 40-byte offset structs. */
    public static final int PARAMS_SIZE = 120;
    /** io_uring_params.sq_entries (__u32 at +0): the kernel writes back the rounded-up SQ size. */
    public static final long PARAMS_SQ_ENTRIES = 0;
    /** io_uring_params.cq_entries (__u32 at +4): twice sq_entries unless IORING_SETUP_CQSIZE. */
    public static final long PARAMS_CQ_ENTRIES = 4;
    /** io_uring_params.flags (__u32 at +8): IORING_SETUP_* requested by the caller. */
    public static final long PARAMS_FLAGS = 8;
    /** io_uring_params.sq_thread_cpu (__u32 at +12): only with IORING_SETUP_SQ_AFF. */
    public static final long PARAMS_SQ_THREAD_CPU = 12;
    /** io_uring_params.sq_thread_idle (__u32 at +16): only with IORING_SETUP_SQPOLL. */
    public static final long PARAMS_SQ_THREAD_IDLE = 16;
    /** io_uring_params.features (__u32 at +20): IORING_FEAT_* the kernel reports back. */
    public static final long PARAMS_FEATURES = 20;
    /** io_uring_params.wq_fd (__u32 at +24): only with IORING_SETUP_ATTACH_WQ. */
    public static final long PARAMS_WQ_FD = 24;
    /** io_uring_params.sq_off (struct io_sqring_offsets at +40, after resv[3] at +28). */
    public static final long PARAMS_SQ_OFF = 40;
    /** io_uring_params.cq_off (struct io_cqring_offsets at +80). */
    public static final long PARAMS_CQ_OFF = 80;

    // ---- struct io_sqring_offsets (inside params at +40) ------------------------------------------
    //
    // Each field is the byte offset *within the SQ ring mapping* where the kernel keeps that value:
    // ring_mask is where the mask lives, not the mask itself (a classic mistake: read it through
    // the mapping).
    //
    //  0      4      8          12            16     20       24     28     32            40
    //  +------+------+----------+-------------+------+--------+------+------+-------------+
    //  | head | tail |ring_mask |ring_entries |flags |dropped |array |resv1 | resv2 (u64) |
    //  +------+------+----------+-------------+------+--------+------+------+-------------+

    /** io_sqring_offsets.head (__u32 at +0): the kernel advances it as it consumes SQEs. */
    public static final long SQ_OFF_HEAD = 0;
    /** io_sqring_offsets.tail (__u32 at +4): the application advances it to publish SQEs. */
    public static final long SQ_OFF_TAIL = 4;
    /** io_sqring_offsets.ring_mask (__u32 at +8): offset of the mask (entries - 1). */
    public static final long SQ_OFF_RING_MASK = 8;
    /** io_sqring_offsets.ring_entries (__u32 at +12): offset of the SQ size. */
    public static final long SQ_OFF_RING_ENTRIES = 12;
    /** io_sqring_offsets.flags (__u32 at +16): offset of IORING_SQ_* (NEED_WAKEUP, CQ_OVERFLOW). */
    public static final long SQ_OFF_FLAGS = 16;
    /** io_sqring_offsets.dropped (__u32 at +20): offset of the count of invalid SQ indices dropped. */
    public static final long SQ_OFF_DROPPED = 20;
    /** io_sqring_offsets.array (__u32 at +24): offset of the __u32 index array (SQ slot -> SQE index). */
    public static final long SQ_OFF_ARRAY = 24;

    // ---- struct io_cqring_offsets (inside params at +80) ------------------------------------------
    //
    //  0      4      8          12            16        20     24     28     32            40
    //  +------+------+----------+-------------+---------+------+------+------+-------------+
    //  | head | tail |ring_mask |ring_entries |overflow | cqes |flags |resv1 | resv2 (u64) |
    //  +------+------+----------+-------------+---------+------+------+------+-------------+

    /** io_cqring_offsets.head (__u32 at +0): the application advances it as it consumes CQEs. */
    public static final long CQ_OFF_HEAD = 0;
    /** io_cqring_offsets.tail (__u32 at +4): the kernel advances it as it posts CQEs. */
    public static final long CQ_OFF_TAIL = 4;
    /** io_cqring_offsets.ring_mask (__u32 at +8): offset of the mask (entries - 1). */
    public static final long CQ_OFF_RING_MASK = 8;
    /** io_cqring_offsets.ring_entries (__u32 at +12): offset of the CQ size. */
    public static final long CQ_OFF_RING_ENTRIES = 12;
    /** io_cqring_offsets.overflow (__u32 at +16): offset of the count of CQEs lost to overflow. */
    public static final long CQ_OFF_OVERFLOW = 16;
    /** io_cqring_offsets.cqes (__u32 at +20): offset of the first struct io_uring_cqe. */
    public static final long CQ_OFF_CQES = 20;

    // ---- struct io_uring_sqe (64 bytes, array mapped at IORING_OFF_SQES) --------------------------
    //
    //  0       1       2        4        8                 16                24       28
    //  +-------+-------+--------+--------+-----------------+-----------------+--------+--------+
    //  |opcode |flags  |ioprio  |fd      | off / addr2     | addr            |len     |rw_flags|
    //  | u8    | u8    | u16    | s32    | u64             | u64             | u32    | u32    |
    //  +-------+-------+--------+--------+-----------------+-----------------+--------+--------+
    //  32                40         42           44                48                56      64
    //  +-----------------+----------+------------+-----------------+-----------------+-------+
    //  | user_data u64   |buf_index |personality |splice_fd_in /   | addr3 u64       |pad2   |
    //  |                 | u16      | u16        |file_index s32   |                 | u64   |
    //  +-----------------+----------+------------+-----------------+-----------------+-------+

    /** sizeof(struct io_uring_sqe) without IORING_SETUP_SQE128. */
    public static final int SQE_SIZE = 64;
    /** io_uring_sqe.opcode (__u8 at +0): IORING_OP_*. */
    public static final long SQE_OPCODE = 0;
    /** io_uring_sqe.flags (__u8 at +1): IOSQE_*. */
    public static final long SQE_FLAGS = 1;
    /** io_uring_sqe.ioprio (__u16 at +2). */
    public static final long SQE_IOPRIO = 2;
    /** io_uring_sqe.fd (__s32 at +4): the file to do I/O on. */
    public static final long SQE_FD = 4;
    /** io_uring_sqe.off (__u64 at +8, union with addr2): file offset in bytes. */
    public static final long SQE_OFF = 8;
    /** io_uring_sqe.addr (__u64 at +16, union with splice_off_in): buffer address. */
    public static final long SQE_ADDR = 16;
    /** io_uring_sqe.len (__u32 at +24): buffer length in bytes for READ/WRITE(_FIXED). */
    public static final long SQE_LEN = 24;
    /** io_uring_sqe.rw_flags (__u32 at +28, union with the other *_flags): RWF_* for reads/writes. */
    public static final long SQE_RW_FLAGS = 28;
    /** io_uring_sqe.user_data (__u64 at +32): echoed back in the CQE; the engine's slot number. */
    public static final long SQE_USER_DATA = 32;
    /** io_uring_sqe.buf_index (__u16 at +40, packed union with buf_group): registered buffer index. */
    public static final long SQE_BUF_INDEX = 40;
    /** io_uring_sqe.personality (__u16 at +42). */
    public static final long SQE_PERSONALITY = 42;
    /** io_uring_sqe.splice_fd_in / file_index (__s32 at +44). */
    public static final long SQE_FILE_INDEX = 44;
    /** io_uring_sqe.addr3 (__u64 at +48). */
    public static final long SQE_ADDR3 = 48;

    // ---- struct io_uring_cqe (16 bytes, array at cq_off.cqes in the CQ ring mapping) -------------
    //
    //  0                  8        12       16
    //  +------------------+--------+--------+
    //  | user_data u64    |res s32 |flags   |
    //  |                  |        | u32    |
    //  +------------------+--------+--------+

    /** sizeof(struct io_uring_cqe) without IORING_SETUP_CQE32. */
    public static final int CQE_SIZE = 16;
    /** io_uring_cqe.user_data (__u64 at +0): the SQE's user_data. */
    public static final long CQE_USER_DATA = 0;
    /** io_uring_cqe.res (__s32 at +8): bytes transferred, or -errno. */
    public static final long CQE_RES = 8;
    /** io_uring_cqe.flags (__u32 at +12): IORING_CQE_F_*. */
    public static final long CQE_FLAGS = 12;

    // ---- struct iovec (uapi linux/uio.h), the argument of IORING_REGISTER_BUFFERS ---------------

    /** sizeof(struct iovec) on 64-bit: iov_base (void * at +0), iov_len (size_t at +8). */
    public static final int IOVEC_SIZE = 16;
    public static final long IOVEC_BASE = 0;
    public static final long IOVEC_LEN = 8;

    // ---- struct io_uring_probe / io_uring_probe_op (IORING_REGISTER_PROBE) -----------------------

    /** sizeof(struct io_uring_probe) header: last_op u8, ops_len u8, resv u16, resv2 u32[3]. */
    public static final int PROBE_HEADER_SIZE = 16;
    /** io_uring_probe.last_op (__u8 at +0): the highest opcode this kernel knows. */
    public static final long PROBE_LAST_OP = 0;
    /** io_uring_probe.ops_len (__u8 at +1): entries filled in ops[]. */
    public static final long PROBE_OPS_LEN = 1;
    /** sizeof(struct io_uring_probe_op): op u8, resv u8, flags u16, resv2 u32. */
    public static final int PROBE_OP_SIZE = 8;
    /** io_uring_probe_op.flags (__u16 at +2): IO_URING_OP_SUPPORTED (1) when the opcode works. */
    public static final long PROBE_OP_FLAGS = 2;
    public static final int IO_URING_OP_SUPPORTED = 1;

    // ---- mmap offsets, opcodes, flags -------------------------------------------------------------

    /** IORING_OFF_SQ_RING: mmap offset of the SQ ring (and the CQ ring with IORING_FEAT_SINGLE_MMAP). */
    public static final long IORING_OFF_SQ_RING = 0L;
    /** IORING_OFF_CQ_RING: mmap offset of the CQ ring on kernels without IORING_FEAT_SINGLE_MMAP. */
    public static final long IORING_OFF_CQ_RING = 0x8000000L;
    /** IORING_OFF_SQES: mmap offset of the SQE array. */
    public static final long IORING_OFF_SQES = 0x10000000L;

    /** enum io_uring_op: IORING_OP_NOP = 0. */
    public static final byte IORING_OP_NOP = 0;
    /** enum io_uring_op: IORING_OP_READ_FIXED = 4 (into a registered buffer). */
    public static final byte IORING_OP_READ_FIXED = 4;
    /** enum io_uring_op: IORING_OP_WRITE_FIXED = 5 (from a registered buffer). */
    public static final byte IORING_OP_WRITE_FIXED = 5;
    /** enum io_uring_op: IORING_OP_READ = 22 (5.6+, like pread). */
    public static final byte IORING_OP_READ = 22;
    /** enum io_uring_op: IORING_OP_WRITE = 23 (5.6+, like pwrite). */
    public static final byte IORING_OP_WRITE = 23;

    /** IORING_SETUP_COOP_TASKRUN (1U << 8): no IPI to run completion task work. 5.19+. */
    public static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;
    /** IORING_SETUP_SUBMIT_ALL (1U << 7): keep submitting a batch when one SQE fails at submit. 5.18+. */
    public static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;
    /** IORING_SETUP_SINGLE_ISSUER (1U << 12): only the creating thread submits. 6.0+. */
    public static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;
    /** IORING_SETUP_DEFER_TASKRUN (1U << 13): run completion work only when the owner enters with GETEVENTS. 6.1+. */
    public static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;

    /** IORING_FEAT_SINGLE_MMAP (1U << 0): SQ and CQ rings share one mapping. 5.4+. */
    public static final int IORING_FEAT_SINGLE_MMAP = 1;
    /** IORING_FEAT_NODROP (1U << 1): CQEs are never dropped on overflow. 5.5+. */
    public static final int IORING_FEAT_NODROP = 1 << 1;

    /** IORING_ENTER_GETEVENTS (1U << 0): wait for min_complete completions. */
    public static final int IORING_ENTER_GETEVENTS = 1;

    /** IORING_REGISTER_BUFFERS = 0: argument is an iovec array, nr_args its length. */
    public static final int IORING_REGISTER_BUFFERS = 0;
    /** IORING_UNREGISTER_BUFFERS = 1. */
    public static final int IORING_UNREGISTER_BUFFERS = 1;
    /** IORING_REGISTER_PROBE = 8: argument is struct io_uring_probe with room for nr_args ops. */
    public static final int IORING_REGISTER_PROBE = 8;

    /**
     * The largest single registered buffer the kernel accepts: io_uring/rsrc.c rejects an iovec
     * longer than SZ_1G with EFAULT ("arbitrary limit, but we need something"). A larger arena is
     * registered as several 1 GiB iovecs.
     */
    public static final long MAX_REGISTERED_BUFFER_BYTES = 1L << 30;

    /** MAX_RW_COUNT (include/linux/fs.h): the kernel transfers at most this much per read or write. */
    public static final long MAX_RW_COUNT_BYTES = 0x7FFFF000L;

    // ---- the same structs as layouts, for tests and documentation --------------------------------

    /** struct io_sqring_offsets and struct io_cqring_offsets share a shape: 7 × u32, resv1 u32, resv2 u64. */
    public static final StructLayout SQ_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("flags"), JAVA_INT.withName("dropped"),
            JAVA_INT.withName("array"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("resv2"));

    public static final StructLayout CQ_OFFSETS = MemoryLayout.structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("overflow"), JAVA_INT.withName("cqes"),
            JAVA_INT.withName("flags"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("resv2"));

    public static final StructLayout PARAMS = MemoryLayout.structLayout(
            JAVA_INT.withName("sq_entries"), JAVA_INT.withName("cq_entries"), JAVA_INT.withName("flags"),
            JAVA_INT.withName("sq_thread_cpu"), JAVA_INT.withName("sq_thread_idle"), JAVA_INT.withName("features"),
            JAVA_INT.withName("wq_fd"), MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv"),
            SQ_OFFSETS.withName("sq_off"), CQ_OFFSETS.withName("cq_off"));

    public static final StructLayout SQE = MemoryLayout.structLayout(
            JAVA_BYTE.withName("opcode"), JAVA_BYTE.withName("flags"), JAVA_SHORT.withName("ioprio"),
            JAVA_INT.withName("fd"), JAVA_LONG.withName("off"), JAVA_LONG.withName("addr"),
            JAVA_INT.withName("len"), JAVA_INT.withName("rw_flags"), JAVA_LONG.withName("user_data"),
            JAVA_SHORT.withName("buf_index"), JAVA_SHORT.withName("personality"), JAVA_INT.withName("file_index"),
            JAVA_LONG.withName("addr3"), JAVA_LONG.withName("pad2"));

    public static final StructLayout CQE = MemoryLayout.structLayout(
            JAVA_LONG.withName("user_data"), JAVA_INT.withName("res"), JAVA_INT.withName("flags"));
}
