#!/usr/bin/env python3
"""Draws images/icon.png (128x128): a rounded tile with a search/replace
block -- a red line going, a green line coming, a bracket of context lines.
Standard library only (zlib + struct); 4x4 supersampling for smooth edges.
Run from editors/vscode: python3 scripts/make-icon.py"""
import struct
import zlib

SIZE = 128
SS = 4  # samples per pixel side


def rounded_rect(x, y, x0, y0, x1, y1, r):
    """Whether (x, y) lies in the rectangle with corners rounded by r."""
    if x < x0 or x > x1 or y < y0 or y > y1:
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


# Shapes, back to front: (test, colour RGBA).
BG_TOP = (32, 56, 100)
BG_BOTTOM = (18, 30, 58)
LINES = [
    # x0, y0, x1, y1, colour
    (30, 30, 86, 40, (200, 214, 235, 255)),   # context
    (30, 50, 98, 60, (234, 84, 85, 255)),     # removed
    (30, 70, 104, 80, (80, 200, 120, 255)),   # added
    (30, 90, 74, 100, (200, 214, 235, 255)),  # context
]


def sample(x, y):
    """The colour at a sub-pixel point, RGBA floats."""
    if not rounded_rect(x, y, 4, 4, 124, 124, 24):
        return (0.0, 0.0, 0.0, 0.0)
    t = (y - 4) / 120
    colour = [BG_TOP[i] * (1 - t) + BG_BOTTOM[i] * t for i in range(3)] + [255.0]
    # The gutter bar on the left (the edit's extent).
    if rounded_rect(x, y, 16, 46, 21, 84, 2.5):
        colour = [255.0, 196.0, 64.0, 255.0]
    for x0, y0, x1, y1, c in LINES:
        if rounded_rect(x, y, x0, y0, x1, y1, 5):
            colour = [float(v) for v in c]
    return tuple(colour)


def render():
    rows = []
    n = SS * SS
    for py in range(SIZE):
        row = bytearray([0])  # filter type: none
        for px in range(SIZE):
            acc = [0.0, 0.0, 0.0, 0.0]
            for sy in range(SS):
                for sx in range(SS):
                    r, g, b, a = sample(px + (sx + 0.5) / SS, py + (sy + 0.5) / SS)
                    acc[0] += r * a
                    acc[1] += g * a
                    acc[2] += b * a
                    acc[3] += a
            alpha = acc[3] / n
            if acc[3] > 0:
                rgb = [round(acc[i] / acc[3]) for i in range(3)]
            else:
                rgb = [0, 0, 0]
            row += bytes(rgb + [round(alpha)])
        rows.append(bytes(row))
    return b"".join(rows)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def main():
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(render(), 9))
    png += chunk(b"IEND", b"")
    with open("images/icon.png", "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main()
