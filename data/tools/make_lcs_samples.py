#!/usr/bin/env python3
"""Writes data/mooncake_first500.oracleGeneral.bin and data/mooncake_first500.lcs.csv: the block
references of the first 500 requests of data/mooncake_synthetic_trace.jsonl (request by request,
each request's hash_ids in prompt order: the order tierlab's replay feeds them) in libCacheSim's
oracleGeneral binary format and in the csv layout tierlab reads (docs/traces.md), so that the same
reference stream can be replayed by tierlab and by libCacheSim.

Fields: clock_time = the request's timestamp in whole seconds; obj_id = the hash id; obj_size = 1
(every block one unit: compare with libCacheSim's --ignore-obj-size 1); next_access_vtime (binary
only) = the 0-based index of the next reference to the same id, -1 if there is none.
Run from the repository root: python3 data/tools/make_lcs_samples.py
"""
import json
import struct

REQUESTS = 500
records = []
with open("data/mooncake_synthetic_trace.jsonl") as trace:
    for number, line in enumerate(trace):
        if number == REQUESTS:
            break
        request = json.loads(line)
        for block in request["hash_ids"]:
            records.append((request["timestamp"] // 1000, block))

next_use = [-1] * len(records)
last_seen = {}
for index in range(len(records) - 1, -1, -1):
    block = records[index][1]
    next_use[index] = last_seen.get(block, -1)
    last_seen[block] = index

with open("data/mooncake_first500.oracleGeneral.bin", "wb") as out:
    for (seconds, block), following in zip(records, next_use):
        out.write(struct.pack("<IQIq", seconds, block, 1, following))
with open("data/mooncake_first500.lcs.csv", "w") as out:
    out.write("clock_time,obj_id,obj_size\n")
    for seconds, block in records:
        out.write(f"{seconds},{block},1\n")
