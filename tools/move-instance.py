"""Moves instance 0 of a binary little-endian instance file 0.5 along x and saves the
file by rename (write a temporary file, rename it over): one save of a moved instance,
as the tools/gpu-*.sh save-to-frame runs make it. Usage: move-instance.py FILE"""
import os
import struct
import sys

path = sys.argv[1]
data = bytearray(open(path, "rb").read())
start = data.index(b"end_header\n") + len(b"end_header\n")
(x,) = struct.unpack_from("<f", data, start)
struct.pack_into("<f", data, start, x + 0.5)
open(path + ".tmp", "wb").write(data)
os.rename(path + ".tmp", path)
