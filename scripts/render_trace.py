#!/usr/bin/env python3
"""Draws a Chrome trace (xlac's collectives.trace.json) as one self-contained HTML page:
one lane per device (thread), wait spans hatched grey, transfer spans coloured by
collective, a time axis in microseconds. No network, no dependencies (standard library).

    python3 scripts/render_trace.py DUMP/module_0000.NAME.collectives.trace.json trace.html
    chromium --headless --disable-gpu --no-sandbox --hide-scrollbars \
        --window-size=1400,560 --screenshot=docs/collectives-trace.png trace.html
"""

import html
import json
import sys

COLORS = {
    "all-reduce": "#4e79a7",
    "all-gather": "#59a14f",
    "reduce-scatter": "#f28e2b",
    "all-to-all": "#b07aa1",
    "collective-permute": "#e15759",
    "collective-broadcast": "#76b7b2",
}


def main(src, dst):
    doc = json.load(open(src))
    events = doc["traceEvents"]
    lanes = {}
    title = "xlac devices"
    for e in events:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            lanes[e["tid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e["name"] == "process_name":
            title = e["args"]["name"]
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        sys.exit("no spans in " + src)
    t0 = min(e["ts"] for e in spans)
    t1 = max(e["ts"] + e["dur"] for e in spans)
    width, left, lane_h, top = 1360, 230, 52, 40
    scale = (width - left - 20) / max(t1 - t0, 1e-9)
    height = top + lane_h * len(lanes) + 50
    out = []
    out.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               'font-family="sans-serif" font-size="12">')
    out.append('<defs><pattern id="h" width="6" height="6" patternUnits="userSpaceOnUse" '
               'patternTransform="rotate(45)"><rect width="6" height="6" fill="#eee"/>'
               '<line x1="0" y1="0" x2="0" y2="6" stroke="#bbb" stroke-width="3"/></pattern></defs>')
    out.append(f'<text x="10" y="22" font-size="15" font-weight="bold">{html.escape(title)}: '
               f'{len(spans) // 2} collective spans over {len(lanes)} devices</text>')
    for i, (tid, name) in enumerate(sorted(lanes.items())):
        y = top + i * lane_h
        out.append(f'<rect x="0" y="{y}" width="{width}" height="{lane_h}" '
                   f'fill="{"#fafafa" if i % 2 else "#ffffff"}"/>')
        out.append(f'<text x="10" y="{y + lane_h / 2 + 4}">{html.escape(name)}</text>')
        for e in spans:
            if e["tid"] != tid:
                continue
            x = left + (e["ts"] - t0) * scale
            w = max(e["dur"] * scale, 1.5)
            wait = e.get("cat") == "wait"
            kind = e["name"].replace("wait ", "").split(" ")[0]
            fill = "url(#h)" if wait else COLORS.get(kind, "#999")
            h = lane_h - 22 if wait else lane_h - 14
            yy = y + (11 if wait else 7)
            label = html.escape(f'{e["name"]}: {e["dur"]:.1f} us, {e["args"].get("bytes_out", 0)} B')
            out.append(f'<rect x="{x:.2f}" y="{yy}" width="{w:.2f}" height="{h}" fill="{fill}" '
                       f'stroke="#555" stroke-width="0.3"><title>{label}</title></rect>')
            if not wait and w > 60:
                out.append(f'<text x="{x + 3:.2f}" y="{y + lane_h / 2 + 4}" fill="white" font-size="10">'
                           f'{html.escape(e["name"])}</text>')
    axis_y = top + lane_h * len(lanes) + 18
    for k in range(11):
        t = (t1 - t0) * k / 10
        x = left + t * scale
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{axis_y - 10}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{axis_y}" text-anchor="middle">{t:.0f} us</text>')
    lx = left
    for kind, color in COLORS.items():
        out.append(f'<rect x="{lx}" y="{axis_y + 12}" width="12" height="12" fill="{color}"/>'
                   f'<text x="{lx + 16}" y="{axis_y + 22}">{kind}</text>')
        lx += 150
    out.append(f'<rect x="{lx}" y="{axis_y + 12}" width="12" height="12" fill="url(#h)"/>'
               f'<text x="{lx + 16}" y="{axis_y + 22}">wait</text>')
    out.append("</svg>")
    page = ("<!doctype html><meta charset=utf-8><title>collectives trace</title>"
            "<body style=margin:0>" + "".join(out) + "</body>")
    open(dst, "w").write(page)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
