#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_received (tests/fuzz/corpus/): one valid
input per case, laid out as fuzz_received.cpp reads it, so that the fuzzer
starts from data the checks accept. Run from the repository root."""
import pathlib
import struct


def ref(rank, addr):  # GlobalRef bits: rank in the top 16 bits
    return (rank << 48) | addr


seeds = {}
# 0: a descriptor as the runtime writes it (task 0, joined, spawned on rank 2 of 4), 80-byte slot
header = struct.pack('<IHHQQQQQ', 0, 4, 8, ref(2, 0x1000), ref(2, 0x1000), ref(2, 0x2000), 0, 0)
seeds['descriptor'] = bytes([0, 2, 3]) + header + bytes(32)
# 1: an inbox entry on rank 1: 8 output bytes and a 4-byte error text, 256-byte payload
seeds['inbox_entry'] = bytes([1]) + struct.pack('<QQQII', ref(1, 0x1000), ref(1, 0x2000), 0, 8, 4) + \
    struct.pack('<HB', 256, 1)
# 2: SWS's example stealval: 150 tasks from slot 500, 2 attempts, 1024-slot ring, threshold 20
seeds['thief'] = bytes([2]) + struct.pack('<QIH', (2 << 40) | (150 << 19) | 500, 1023, 19)
# 3: owner, 8 slots: 6 pushes, release 3 (fetched: the initial word 0), observe it exhausted, acquire
ops = bytes([0] * 6) + bytes([1]) + struct.pack('<HQ', 2, 0) + \
    bytes([3]) + struct.pack('<Q', (3 << 19)) + bytes([2]) + struct.pack('<Q', (1 << 40) | (3 << 19))
seeds['owner'] = bytes([3]) + struct.pack('<H', 7) + ops
# 4: SDC: 10 public tasks of a 64-slot ring
seeds['sdc'] = bytes([4]) + struct.pack('<QQI', 10, 20, 63)

out = pathlib.Path('tests/fuzz/corpus')
out.mkdir(parents=True, exist_ok=True)
for name, data in seeds.items():
    (out / name).write_bytes(data)
