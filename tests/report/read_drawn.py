#!/usr/bin/env python3
"""Reads back what the reports drew and holds it against what they were given.

  read_drawn.py profile REPORT.html DOM.html   the bars' values (from their pixels) against the
                                               report's data, and the table's rows
  read_drawn.py html-curve CURVE.html DOM.html EXPECTED.json   each line's points against EXPECTED
  read_drawn.py svg-curve CURVE.svg EXPECTED.json              the dots, mapped back through the
                                                               plot's scales, against EXPECTED
  read_drawn.py png-curve CURVE.png CURVE.svg                  the PNG's pixel at each of the
                                                               SVG's dots has the dot's colour

EXPECTED: {workload_key: [[trial, best_ms], ...]} (the improvements). Prints "ok: ..." per check
and exits 1 at the first that fails.
"""
import html
import json
import math
import re
import sys
import xml.etree.ElementTree as ET


def check(name, condition):
    print(("ok: " if condition else "FAIL: ") + name)
    if not condition:
        sys.exit(1)


def close(a, b, rel=1e-6):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def page_data(path):
    text = open(path, encoding="utf-8").read()
    match = re.search(r"^const DATA = (.*);$", text, re.M)
    return json.loads(match.group(1).replace("<\\/", "</"))


def drawn(dom_path, chart_id):
    dom = open(dom_path, encoding="utf-8").read()
    match = re.search(r'<pre id="drawn-%s"[^>]*>(.*?)</pre>' % chart_id, dom, re.S)
    check("chart '%s' was drawn" % chart_id, match is not None)
    return json.loads(html.unescape(match.group(1)))


def profile(report, dom_path):
    data = page_data(report)
    bars = drawn(dom_path, "bars")
    check("one bar series per build", len(bars) == len(data["models"]))
    shown = data["rows"][:data["bars"]]
    for m, series in enumerate(bars):
        values = [p[0] for p in series["points"]]
        expected = [r["ms"][m] for r in shown]
        check("%s: %d bars drawn at their ms" % (series["label"], len(expected)),
              all(close(v, e) if e is not None else v in (0, None)
                  for v, e in zip(values, expected)))
        rest = data["rows"][data["bars"]:]
        if rest:
            total = sum(r["ms"][m] or 0 for r in rest)
            check("%s: the other calls drawn as one bar" % series["label"], close(values[-1], total))
    dom = open(dom_path, encoding="utf-8").read()
    for r in data["rows"]:
        check("table row for " + r["name"], html.escape(r["name"], quote=False) in dom)


def html_curve(page, dom_path, expected_path):
    expected = json.load(open(expected_path))
    data = page_data(page)
    for chart_id, axis in (("trials", 0), ("time", 1)):
        lines = {line["label"]: line for line in drawn(dom_path, chart_id)}
        for key, bests in expected.items():
            curve = next(c for c in data["curves"] if c["workload_key"] == key)
            points = lines[key]["points"]
            check("%s/%s: a point per best, then the last trial" % (chart_id, key),
                  len(points) in (len(bests), len(bests) + 1))
            for (x, y), (trial, ms), improvement in zip(points, bests, curve["improvements"]):
                want_x = trial if axis == 0 else improvement[1]
                check("%s/%s: drawn at (%g, %g ms)" % (chart_id, key, want_x, ms),
                      close(x, want_x, 1e-4) and close(y, ms, 1e-4))


def svg_curve(svg_path, expected_path):
    expected = json.load(open(expected_path))
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(svg_path).getroot()
    plot = root.find("s:g[@class='plot']", ns)
    px0, px1 = map(float, plot.get("data-x-pixels").split())
    vx0, vx1 = map(float, plot.get("data-x-values").split())
    py0, py1 = map(float, plot.get("data-y-pixels").split())
    ly0, ly1 = map(float, plot.get("data-y-log10-ms").split())
    series = {g.get("data-workload"): g for g in plot.findall("s:g[@class='series']", ns)}
    check("one line per task with a success", set(series) == set(expected))
    for key, bests in expected.items():
        dots = series[key].findall("s:circle", ns)
        check("%s: a dot per best" % key, len(dots) == len(bests))
        for dot, (trial, ms) in zip(dots, bests):
            x = vx0 + (float(dot.get("cx")) - px0) / (px1 - px0) * (vx1 - vx0)
            y = 10 ** (ly0 + (float(dot.get("cy")) - py0) / (py1 - py0) * (ly1 - ly0))
            # Coordinates are written to 0.01 px.
            check("%s: dot at trial %g, %g ms" % (key, trial, ms),
                  abs(x - trial) < 0.05 and abs(math.log10(y) - math.log10(ms)) < 1e-3)


def png_curve(png_path, svg_path):
    import matplotlib.image  # Debian's python3-matplotlib reads PNG without PIL
    pixels = matplotlib.image.imread(png_path)
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(svg_path).getroot()
    check("the PNG has the SVG's size",
          pixels.shape[1] == round(float(root.get("width"))) and
          pixels.shape[0] == round(float(root.get("height"))))
    dots = root.findall(".//s:circle", ns)
    check("the SVG has dots", len(dots) > 0)
    for dot in dots:
        x, y = round(float(dot.get("cx"))), round(float(dot.get("cy")))
        want = [int(dot.get("fill")[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        got = [float(v) for v in pixels[y, x][:3]]
        check("pixel (%d, %d) is %s" % (x, y, dot.get("fill")),
              all(abs(g - w) < 0.02 for g, w in zip(got, want)))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"profile": profile, "html-curve": html_curve, "svg-curve": svg_curve,
     "png-curve": png_curve}[command](*args)
