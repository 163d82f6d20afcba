"""A dray optimize checkpoint read back (tools/checkpoint.cpp) with the standard library alone: the
manifest OUTPUT/checkpoint.json and each block's binary arrays (value: floats, as the scene holds
them; m, v: doubles; seen: bytes), each checked against its size and CRC-32."""
import array
import json
import os
import zlib


def load(out_dir):
    manifest = json.load(open(os.path.join(out_dir, "checkpoint.json")))
    blocks = []
    for b in manifest["blocks"]:
        arrays = {"key": b["key"]}
        for q, code in (("value", "f"), ("m", "d"), ("v", "d"), ("seen", "B")):
            raw = open(os.path.join(out_dir, manifest["arrays"], b["files"][q]), "rb").read()
            assert zlib.crc32(raw) == b["crc32"][q], (b["key"], q)
            arrays[q] = array.array(code, raw)  # little-endian, as written on x86-64 and arm64
            assert len(arrays[q]) == b["size"], (b["key"], q, len(arrays[q]))
        blocks.append(arrays)
    return {"iteration": manifest["iteration"], "blocks": blocks}
