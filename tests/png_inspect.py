#!/usr/bin/env python3
"""Checks what a screenshot shows in one rectangle, with the standard library only.

  png_inspect.py IMAGE --region X,Y,W,H --colors '#rrggbb,...' [--min-each N]
      every listed colour covers at least N pixels of the region (default 20)
  png_inspect.py IMAGE --region X,Y,W,H --absent '#rrggbb,...' [--max-each N]
      no listed colour covers more than N pixels of the region (default 0)
  png_inspect.py IMAGE --region X,Y,W,H --min-busy N --min-distinct K
      at least N pixels differ from the region's most common colour, and at least K colours
      (channels in steps of 16) cover 30 pixels or more each

Prints what it found; exits 1 when a check fails and 2 when the image cannot be read. Decodes
8-bit, non-interlaced PNGs (greyscale, RGB, RGBA, with or without alpha), as browsers write them.
"""
import argparse
import struct
import sys
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel


def read_png(path, max_rows=None):
    """Returns (width, height, channels, rows): rows[y] is a bytes object of width * channels."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    pos, idat, header = len(SIGNATURE), [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in CHANNELS or interlace:
        raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d" % (depth, colour, interlace))
    channels = CHANNELS[colour]
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytes(stride)
    last = height if max_rows is None else min(height, max_rows)
    for y in range(last):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        unfilter(kind, line, prev, channels)
        prev = bytes(line)
        rows.append(prev)
    return width, height, channels, rows


def unfilter(kind, line, prev, bpp):
    n = len(line)
    if kind == 0:
        return
    if kind == 1:  # Sub
        for i in range(bpp, n):
            line[i] = (line[i] + line[i - bpp]) & 0xFF
    elif kind == 2:  # Up
        for i in range(n):
            line[i] = (line[i] + prev[i]) & 0xFF
    elif kind == 3:  # Average
        for i in range(n):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
    elif kind == 4:  # Paeth
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    else:
        raise ValueError("bad filter type %d" % kind)


def region_pixels(image, region):
    """The (r, g, b) of every pixel in the region, clipped to the image."""
    width, height, channels, rows = image
    x, y, w, h = region
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + w), min(len(rows), y + h)
    for row in rows[y0:y1]:
        for px in range(x0, x1):
            i = px * channels
            if channels >= 3:
                yield row[i], row[i + 1], row[i + 2]
            else:
                yield row[i], row[i], row[i]


def parse_colour(text):
    text = text.strip().lstrip("#")
    if len(text) == 3:
        text = "".join(c * 2 for c in text)
    return tuple(int(text[i:i + 2], 16) for i in (0, 2, 4))


def near(a, b, tolerance):
    return all(abs(p - q) <= tolerance for p, q in zip(a, b))


def main():
    ap = argparse.ArgumentParser(description="check a rectangle of a PNG screenshot")
    ap.add_argument("image")
    ap.add_argument("--region", required=True, help="X,Y,W,H in pixels")
    ap.add_argument("--colors", help="#rrggbb,... that must each appear")
    ap.add_argument("--min-each", type=int, default=20)
    ap.add_argument("--absent", help="#rrggbb,... that must not appear")
    ap.add_argument("--max-each", type=int, default=0)
    ap.add_argument("--tolerance", type=int, default=3, help="per channel, for --colors and --absent")
    ap.add_argument("--min-busy", type=int)
    ap.add_argument("--min-distinct", type=int)
    args = ap.parse_args()
    region = tuple(int(v) for v in args.region.split(","))
    if len(region) != 4 or region[2] <= 0 or region[3] <= 0:
        print("png_inspect: --region wants X,Y,W,H with W and H above 0", file=sys.stderr)
        return 2
    try:
        image = read_png(args.image, max_rows=region[1] + region[3])
    except (OSError, ValueError, zlib.error) as e:
        print("png_inspect: %s: %s" % (args.image, e), file=sys.stderr)
        return 2
    counts = {}
    for rgb in region_pixels(image, region):
        counts[rgb] = counts.get(rgb, 0) + 1
    if not counts:
        print("png_inspect: the region %s lies outside the %dx%d image" % (args.region, image[0], image[1]))
        return 1
    ok = True
    if args.colors:
        wanted = [parse_colour(c) for c in args.colors.split(",") if c.strip()]
        missing = []
        for colour in wanted:
            n = sum(k for rgb, k in counts.items() if near(rgb, colour, args.tolerance))
            if n < args.min_each:
                missing.append("#%02x%02x%02x (%d px)" % (colour + (n,)))
        print("colours: %d of %d cover %d+ px" % (len(wanted) - len(missing), len(wanted), args.min_each))
        if missing:
            print("too few pixels of: " + ", ".join(missing))
            ok = False
    if args.absent:
        unwanted = [parse_colour(c) for c in args.absent.split(",") if c.strip()]
        present = []
        for colour in unwanted:
            n = sum(k for rgb, k in counts.items() if near(rgb, colour, args.tolerance))
            if n > args.max_each:
                present.append("#%02x%02x%02x (%d px)" % (colour + (n,)))
        print("absent: %d of %d cover at most %d px" % (len(unwanted) - len(present), len(unwanted), args.max_each))
        if present:
            print("present: " + ", ".join(present))
            ok = False
    if args.min_busy is not None or args.min_distinct is not None:
        background = max(counts, key=counts.get)
        busy = sum(k for rgb, k in counts.items() if not near(rgb, background, 24))
        bins = {}
        for (r, g, b), k in counts.items():
            key = (r >> 4, g >> 4, b >> 4)
            bins[key] = bins.get(key, 0) + k
        distinct = sum(1 for k in bins.values() if k >= 30)
        print("busy: %d px off the background #%02x%02x%02x; %d colours of 30+ px" % ((busy,) + background + (distinct,)))
        if args.min_busy is not None and busy < args.min_busy:
            print("fewer than %d busy pixels" % args.min_busy)
            ok = False
        if args.min_distinct is not None and distinct < args.min_distinct:
            print("fewer than %d colours" % args.min_distinct)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
