#!/usr/bin/env python3
"""Write rate of O_DIRECT sequential writes to a file's fresh extents against the same writes over
blocks written before, on the file system that holds DIR.

Why: tierlab's live L2 file is preallocated with fallocate, so a cold pass writes into unwritten
extents, while the calibration's test files are written everywhere first (overwrites). On ext4 a
write into an unwritten extent also converts the extent at completion. This measures what that costs
on a host, outside tierlab, with plain pwrite calls from N threads (each thread one write in
flight: queue depth N), interleaved round by round because virtio disks drift.

Usage: fresh_extents.py DIR [FILE_MIB [BLOCK_KIB [THREADS [ROUNDS]]]]   (defaults 4096 2304 16 3)
Prints one line per pass and the medians; deletes its file at the end.
"""
import mmap
import os
import statistics
import subprocess
import sys
import threading
import time


def write_pass(path, file_bytes, block_bytes, threads):
    fd = os.open(path, os.O_WRONLY | os.O_DIRECT)
    buffers = [mmap.mmap(-1, block_bytes) for _ in range(threads)]
    for b in buffers:
        b.write(os.urandom(block_bytes))
    next_offset = [0]
    lock = threading.Lock()

    def worker(i):
        view = memoryview(buffers[i])
        while True:
            with lock:
                offset = next_offset[0]
                if offset >= file_bytes:
                    return
                next_offset[0] = offset + block_bytes
            length = min(block_bytes, file_bytes - offset)
            os.pwrite(fd, view[:length], offset)

    start = time.monotonic()
    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    os.fsync(fd)
    seconds = time.monotonic() - start
    os.close(fd)
    return file_bytes / seconds


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2])
        return 2
    folder = sys.argv[1]
    file_mib = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    block_kib = int(sys.argv[3]) if len(sys.argv) > 3 else 2304
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 16
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    block_bytes = block_kib << 10
    file_bytes = (file_mib << 20) // block_bytes * block_bytes
    path = os.path.join(folder, "fresh-extents-%d.bin" % os.getpid())
    fs = subprocess.run(["findmnt", "-n", "-o", "SOURCE,FSTYPE,OPTIONS", "--target", folder],
                        capture_output=True, text=True).stdout.strip()
    print("file system of %s: %s" % (folder, fs))
    print("%d MiB per pass, %d KiB writes, %d threads (queue depth %d), O_DIRECT pwrite, fsync at the end"
          % (file_bytes >> 20, block_kib, threads, threads))
    rates = {"fallocated, fresh": [], "sparse, fresh": [], "overwrite": []}
    try:
        for r in range(1, rounds + 1):
            for kind in ("fallocated, fresh", "overwrite", "sparse, fresh", "overwrite"):
                if kind != "overwrite":
                    if os.path.exists(path):
                        os.unlink(path)
                    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
                    if kind.startswith("fallocated"):
                        os.posix_fallocate(fd, 0, file_bytes)
                    else:
                        os.ftruncate(fd, file_bytes)
                    os.fsync(fd)
                    os.close(fd)
                rate = write_pass(path, file_bytes, block_bytes, threads)
                rates[kind].append(rate)
                print("round %d: %-18s %6.3f GB/s" % (r, kind, rate / 1e9), flush=True)
    finally:
        if os.path.exists(path):
            os.unlink(path)
    for kind, values in rates.items():
        print("median %-18s %6.3f GB/s (%s)" % (kind, statistics.median(values) / 1e9,
                                                  ", ".join("%.3f" % (v / 1e9) for v in values)))
    over = statistics.median(rates["overwrite"])
    for kind in ("fallocated, fresh", "sparse, fresh"):
        print("%s / overwrite: %.2f" % (kind, statistics.median(rates[kind]) / over))
    return 0


if __name__ == "__main__":
    sys.exit(main())
