#!/usr/bin/env python3
# Draws Switchboard's app icon (a patch-panel of jacks with one live cable)
# into src-tauri/icons/ as RGBA PNGs, with only the standard library.
import struct, zlib, math, pathlib

def png(size):
    bg, jack, live = (30, 36, 48), (96, 110, 134), (79, 209, 197)
    radius = size * 0.22
    rows = []
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            cx, cy = x + 0.5, y + 0.5
            # Rounded-square mask.
            dx = max(radius - cx, 0, cx - (size - radius))
            dy = max(radius - cy, 0, cy - (size - radius))
            alpha = 255 if math.hypot(dx, dy) <= radius else 0
            color = bg
            # A 3x3 grid of jacks; the middle row is lit.
            for gy in range(3):
                for gx in range(3):
                    jx, jy = size * (0.28 + 0.22 * gx), size * (0.28 + 0.22 * gy)
                    if math.hypot(cx - jx, cy - jy) <= size * 0.075:
                        color = live if gy == 1 else jack
            # A cable from the top-left jack to the bottom-right one.
            if abs((cx - cy)) <= size * 0.035 and size * 0.28 <= cx <= size * 0.72:
                color = live
            row += bytes(color) + bytes([alpha])
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")

out = pathlib.Path(__file__).resolve().parent.parent / "src-tauri" / "icons"
out.mkdir(parents=True, exist_ok=True)
for name, size in [("32x32.png", 32), ("128x128.png", 128), ("128x128@2x.png", 256), ("icon.png", 512)]:
    (out / name).write_bytes(png(size))
