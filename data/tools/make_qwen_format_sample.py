#!/usr/bin/env python3
"""Writes data/qwen_format_sample.jsonl: a small, tierlab-made trace in the record format of the
Qwen-Bailian KVCache traces (alibaba-edu/qwen-bailian-usagetraces-anon, README "Data Specification
of the Traces"). It is NOT the public trace (whose files are not reachable from where tierlab was
built); it only follows its format and its session structure, so the reader, the replay and the
catalogue can be exercised offline.

Model (seeded, so the file is reproducible: python3 data/tools/make_qwen_format_sample.py):
- 40 system prompts of 2-40 blocks of 16 tokens; a new chat picks one with Zipf(1.0) popularity.
- A root request (turn 1, parent_chat_id -1) is its system prompt plus 1-60 new blocks.
- With probability 0.6 a chat continues 5-120 s later (turn + 1, parent_chat_id = the previous
  request): its input starts with every full block of the parent's input, then 1-40 new blocks
  (the parent's answer and the next question), up to 12 turns.
- Arrivals are Poisson at 5 requests/s; output lengths 16-600 tokens; type mostly text.
- hash_ids are small sequential integers, as after the README's domain remapping.
"""
import json
import random

SEED = 20250701
REQUESTS = 600
BLOCK = 16

rng = random.Random(SEED)
next_id = [0]


def new_blocks(count):
    ids = list(range(next_id[0], next_id[0] + count))
    next_id[0] += count
    return ids


prompts = [new_blocks(rng.randint(2, 40)) for _ in range(40)]
weights = [1.0 / (rank + 1) for rank in range(len(prompts))]
pending = []  # (arrival_s, parent record)
records = []
clock = 0.0
chat_id = 0
while len(records) < REQUESTS:
    clock += rng.expovariate(5.0)
    while pending and pending[0][0] <= clock and len(records) < REQUESTS:
        arrival, parent = pending.pop(0)
        full = parent["input_length"] // BLOCK
        ids = parent["hash_ids"][:full] + new_blocks(rng.randint(1, 40))
        records.append(dict(chat_id=chat_id, parent_chat_id=parent["chat_id"], timestamp=round(arrival, 3),
                            input_length=len(ids) * BLOCK - rng.randint(0, BLOCK - 1),
                            output_length=rng.randint(16, 600), type="text", turn=parent["turn"] + 1, hash_ids=ids))
        chat_id += 1
        if records[-1]["turn"] < 12 and rng.random() < 0.6:
            pending.append((arrival + rng.uniform(5, 120), records[-1]))
            pending.sort(key=lambda entry: entry[0])
    if len(records) >= REQUESTS:
        break
    ids = rng.choices(prompts, weights)[0] + new_blocks(rng.randint(1, 60))
    kind = rng.choices(["text", "search", "image", "file"], [0.8, 0.1, 0.05, 0.05])[0]
    records.append(dict(chat_id=chat_id, parent_chat_id=-1, timestamp=round(clock, 3),
                        input_length=len(ids) * BLOCK - rng.randint(0, BLOCK - 1),
                        output_length=rng.randint(16, 600), type=kind, turn=1, hash_ids=ids))
    chat_id += 1
    if rng.random() < 0.6:
        pending.append((clock + rng.uniform(5, 120), records[-1]))
        pending.sort(key=lambda entry: entry[0])

with open("data/qwen_format_sample.jsonl", "w") as out:
    for record in records:
        out.write(json.dumps(record, separators=(", ", ": ")) + "\n")
