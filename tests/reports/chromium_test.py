#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The pictures as a person sees them: headless Chromium opens them.

usage: chromium_test.py SCC SCVM REPO WORKDIR [--update]

What is opened:
  - every stdlib PTY screenshot as scvm draws it (`scvm run -t pty
    --artifacts` of stdlib-scenarios/pty_*.yaml against the committed
    goldens: <artifacts>/<scenario>/<profile>/pictures/<label>.svg);
  - each run's page of all its screens (pictures/index.html);
  - a golden mismatch page (<label>.diff.html), made by playing
    pty_bash_session against a copy of its goldens with one character
    changed;
  - the schedule page of `scc -l --html` (stdlib bugfix_with_tests.yaml).

How each is checked:
  1. It loads cleanly.  `chromium --headless --dump-dom --enable-logging=stderr
     --v=0` prints the DOM after parsing and, on stderr, every console
     message as a `CONSOLE` line (script errors, resources that fail to load,
     CSP reports): none may appear.  An SVG file that is not well-formed XML
     does not raise a console message, Chromium shows its parser error page
     instead, so the DOM must not hold a <parsererror>.  Nothing may be
     fetched either: no src=, href= or url( in the file.  (The DevTools
     protocol would need a WebSocket client, which the standard library
     does not have; the dump and the log see the same errors.)
  2. The text is on the right cells.  From the dumped DOM every <text>
     element's characters are put on the cells their x and y say, and the
     rows must equal the golden's `text` rows.
  3. The pixels show it.  `--screenshot` of the SVG: each cell the golden
     has a character in must have ink (pixels unlike the cell's
     background), and blank cells of default colours none.
  4. The pixels stay the same.  Each screenshot is compared with a
     reference PNG in tests/reports/ref/ (decoded here with zlib): at most
     0.5% of pixels may differ by more than 48 in a channel (anti-aliasing
     and font hinting vary a little between builds).  --update rewrites
     the references.

Exit 77 (skip) only when no chromium is installed.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import run  # noqa: E402

if len(sys.argv) < 5:
    print(__doc__)
    sys.exit(2)
SCC, SCVM, REPO, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
UPDATE = '--update' in sys.argv[5:]
STDLIB = os.path.join(REPO, 'stdlib-scenarios')
REF = os.path.join(REPO, 'tests', 'reports', 'ref')
CELL_W, CELL_H = 9, 18          # formats/term/term_svg.h
DEF_BG = (0x1c, 0x1c, 0x1c)

CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser')
if not CHROMIUM:
    print('skip: chromium is not installed (scripts/setup-deps.sh installs it)')
    sys.exit(77)

failures = []


def fail(what, why):
    failures.append(what)
    print('FAIL %s: %s' % (what, why))


def chromium(url, *extra):
    # a profile folder of our own: no state from other runs, no prompts
    prof = os.path.join(WORK, 'chromium-profile')
    args = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
            '--disable-extensions', '--hide-scrollbars', '--force-device-scale-factor=1',
            '--user-data-dir=' + prof, '--enable-logging=stderr', '--v=0'] + list(extra) + [url]
    # one more try when the browser itself fails (it can, starting on a
    # loaded 2-core machine); what it reports about the page is never retried
    for attempt in (1, 2):
        try:
            st, out, err = run(args, timeout=240)
        except subprocess.TimeoutExpired:
            st, out, err = -1, '', 'timed out after 240 s'
        if st == 0:
            break
        print('note: chromium exited %d (attempt %d): %s' % (st, attempt, err.strip()[-300:]))
    return st, out, err


# ---------- PNG, without third-party packages ----------

def png_read(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB/RGBA PNG."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('%s: not a PNG' % path)
    pos, idat, w = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError('%s: only 8-bit RGB(A), not interlaced' % path)
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def png_write(path, w, h, rows):
    """rows (of (r, g, b) tuples) as an 8-bit RGB PNG, unfiltered."""
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
    raw = b''.join(b'\x00' + bytes(c for px in row for c in px) for row in rows[:h])
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(raw, 6)) + chunk(b'IEND', b''))


def pixels_differ(a, b, limit=48):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2])) > limit


def compare_ref(what, png, ref):
    if UPDATE:
        os.makedirs(os.path.dirname(ref), exist_ok=True)
        shutil.copyfile(png, ref)
        print('updated %s' % os.path.relpath(ref, REPO))
        return
    if not os.path.exists(ref):
        fail(what, 'no reference %s (run with --update, review, commit)' % ref)
        return
    w1, h1, a = png_read(png)
    w2, h2, b = png_read(ref)
    if (w1, h1) != (w2, h2):
        fail(what, 'screenshot is %dx%d, reference %dx%d' % (w1, h1, w2, h2))
        return
    bad = sum(1 for y in range(h1) for x in range(w1) if pixels_differ(a[y][x], b[y][x]))
    if bad > w1 * h1 * 0.005:
        fail(what, '%d of %d pixels differ from %s' % (bad, w1 * h1, os.path.relpath(ref, REPO)))
    else:
        print('ok   %s: %d of %d pixels differ from the reference (at most 0.5%%)' % (what, bad, w1 * h1))


# ---------- the checks ----------

def loads_cleanly(what, path, must_hold=(), links=False, fragment='', extra=()):
    """1: no console message, no parser error, nothing fetched (links=True:
    only links to pages beside it).  Returns the DOM."""
    text = open(path, encoding='utf-8').read()
    if links:
        text = re.sub(r'<a href="\d{4}-[A-Za-z0-9._-]+\.html">', '', text)
    for bad in ('src=', 'href=', 'url('):
        if bad in text:
            fail(what, 'the page fetches something (%s)' % bad)
    st, dom, err = chromium('file://' + path + fragment, '--dump-dom', *extra)
    if st != 0:
        fail(what, 'chromium --dump-dom exited %d: %s' % (st, err[-500:]))
        return ''
    console = [l for l in err.splitlines() if 'CONSOLE' in l]
    if console:
        fail(what, 'console messages:\n  ' + '\n  '.join(console))
    if 'parsererror' in dom or 'This page contains the following errors' in dom:
        fail(what, 'the document did not parse: %s' % dom[:500])
    for s in must_hold:
        if s not in dom:
            fail(what, 'the DOM does not hold %r' % s)
    return dom


def golden_rows(path):
    """The golden's size and text rows (docs/golden-screens.md)."""
    rows, size, sec = {}, None, None
    for line in open(path, encoding='utf-8').read().split('\n'):
        if line.startswith('size '):
            r, c = line[5:].split('x')
            size = (int(r), int(c))
        elif line in ('text', 'attrs', 'masks'):
            sec = line
        elif sec == 'text' and '|' in line:
            n, t = line.split('|', 1)
            rows[int(n)] = t
    return size, [rows.get(i, '') for i in range(size[0])]


def unescape(s):
    return (s.replace('&lt;', '<').replace('&gt;', '>').replace('&quot;', '"')
            .replace('&#39;', "'").replace('&amp;', '&'))


TEXT_RE = re.compile(r'<text y="(\d+)"[^>]* x="([\d ]+)">([^<]*)</text>')


def wide(ch):
    o = ord(ch)
    return (0x1100 <= o <= 0x115f or 0x2e80 <= o <= 0xa4cf or 0xac00 <= o <= 0xd7a3 or
            0xf900 <= o <= 0xfaff or 0xfe30 <= o <= 0xfe4f or 0xff00 <= o <= 0xff60 or
            0xffe0 <= o <= 0xffe6 or 0x1f300 <= o <= 0x1f64f or 0x1f900 <= o <= 0x1f9ff or
            0x20000 <= o <= 0x3fffd)


def cells_of_rows(rows, cols):
    """Golden text rows -> {(row, col): char} (a wide character on its first cell)."""
    cells = {}
    for r, t in enumerate(rows):
        c = 0
        for ch in t:
            if 0x300 <= ord(ch) <= 0x36f and c > 0:
                continue
            if ch != ' ':
                cells[(r, c)] = ch
            c += 2 if wide(ch) else 1
    return cells


def text_on_cells(what, dom, golden):
    """2: each character of the DOM's <text> on the golden's cell."""
    (nr, nc), rows = golden_rows(golden)
    want = cells_of_rows(rows, nc)
    got = {}
    for y, xs, t in TEXT_RE.findall(dom):
        chars = [ch for ch in unescape(t) if not (0x300 <= ord(ch) <= 0x36f)]
        xs = [int(x) for x in xs.split()]
        if len(xs) != len(chars):
            fail(what, '<text> with %d x positions for %d characters' % (len(xs), len(chars)))
            return want
        for x, ch in zip(xs, chars):
            got[((int(y) - 14) // CELL_H, x // CELL_W)] = ch
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()))[:10]
        fail(what, 'characters not on the golden cells: %s' % diff)
    else:
        print('ok   %s: %d characters on the golden\'s cells' % (what, len(want)))
    return want


def ink_on_cells(what, png, golden, want):
    """3: the rendered cells have ink exactly where the golden has text."""
    (nr, nc), _ = golden_rows(golden)
    w, h, px = png_read(png)
    attrs = attr_cells(golden)
    bad = []
    for r in range(nr):
        for c in range(nc):
            if (r, c) in attrs:
                continue
            ink = sum(1 for y in range(r * CELL_H, (r + 1) * CELL_H) for x in range(c * CELL_W, (c + 1) * CELL_W)
                      if pixels_differ(px[y][x], DEF_BG, 64))
            if (r, c) in want and ink == 0:
                bad.append('cell %d,%d (%r) is empty' % (r, c, want[(r, c)]))
            elif (r, c) not in want and not covered(want, r, c) and ink > 0:
                bad.append('cell %d,%d should be blank: %d pixels' % (r, c, ink))
    if bad:
        fail(what, '; '.join(bad[:10]))
    else:
        print('ok   %s: ink on the %d cells with text, none elsewhere' % (what, len(want)))


def covered(want, r, c):
    """The right half of a wide character, or the cursor's cell."""
    ch = want.get((r, c - 1))
    return ch is not None and wide(ch)


def attr_cells(golden):
    """Cells with attributes or under the cursor: their colours are not the default."""
    out, sec = set(), None
    for line in open(golden, encoding='utf-8').read().split('\n'):
        if line.startswith('cursor ') and line.endswith(' visible'):
            r, c = line[7:].split()[0].split(',')
            out.add((int(r), int(c)))
        elif line in ('text', 'attrs', 'masks'):
            sec = line
        elif sec == 'attrs' and ':' in line:
            r, runs = line.split(':', 1)
            for run in runs.split(','):
                a, b = run.split()[0].split('-')
                for c in range(int(a), int(b) + 1):
                    out.add((int(r), c))
    return out


def svg_size(path):
    m = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', open(path, encoding='utf-8').read())
    return int(m.group(1)), int(m.group(2))


# Headless Chromium's viewport can come up shorter than --window-size (one
# CI run: 35 px short of 560, the page cut off there and the rest filled
# with its background), so a screenshot is taken this much taller and
# cropped to the size asked for; nothing on these pages depends on the
# viewport's height.
SHOT_PAD = 160


def screenshot(path, png, size):
    w, h = size
    st, _, err = chromium('file://' + path, '--screenshot=' + png, '--window-size=%d,%d' % (w, h + SHOT_PAD))
    if st != 0 or not os.path.exists(png):
        fail(os.path.basename(path), 'chromium --screenshot exited %d: %s' % (st, err[-500:]))
        return False
    pw, ph, rows = png_read(png)
    if pw != w or ph != h + SHOT_PAD:
        fail(os.path.basename(path), 'chromium --screenshot gave %dx%d, asked for %dx%d' % (pw, ph, w, h + SHOT_PAD))
        return False
    png_write(png, w, h, rows[:h])
    return True


# ---------- the stdlib's screenshots ----------

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def profile_of(scb):
    st, out, _ = run([SCVM, 'info', '--json', scb])
    m = re.search(r'"terminal":\{[^}]*"name":"([^"]+)"', out)
    return m.group(1) if m else '80x24'


def play(name, goldens_dir, art):
    yaml = os.path.join(STDLIB, name + '.yaml')
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    scb = os.path.join(d, name + '.scb')
    st, _, err = run([SCC, '-o', scb, yaml])
    if st != 0:
        fail(name, 'scc: ' + err)
        return None, None
    profile = profile_of(scb)
    if goldens_dir is None:
        goldens_dir = os.path.join(STDLIB, 'goldens', name, profile, 'screenshots')
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--ci', '--goldens', goldens_dir, '--artifacts', art, scb],
                       cwd=d, timeout=240)
    return st, os.path.join(art, name, profile)


for yaml in sorted(os.listdir(STDLIB)):
    if not (yaml.startswith('pty_') and yaml.endswith('.yaml')):
        continue
    name = yaml[:-5]
    st, base = play(name, None, os.path.join(WORK, name, 'art'))
    if st is None:
        continue
    if st != 0:
        fail(name, 'scvm run -t pty exited %d (is the program installed? scripts/setup-deps.sh)' % st)
        continue
    shots = sorted(f[:-4] for f in os.listdir(os.path.join(base, 'pictures')) if f.endswith('.svg'))
    if not shots:
        fail(name, 'no pictures in %s' % base)
    index = os.path.join(base, 'pictures', 'index.html')
    dom = loads_cleanly('%s/index.html' % name, index, ('class="result passed"', 'class="result match"'))
    if dom.count('class="scc-screen"') != len(shots) + 1:   # and the final screen
        fail('%s/index.html' % name, '%d screens for %d screenshots and the final one' %
             (dom.count('class="scc-screen"'), len(shots)))
    for label in shots:
        what = '%s/%s.svg' % (name, label)
        svg = os.path.join(base, 'pictures', label + '.svg')
        golden = os.path.join(base, 'screenshots', label + '.golden')
        dom = loads_cleanly(what, svg, ('<svg',))
        want = text_on_cells(what, dom, golden)
        png = os.path.join(WORK, '%s.%s.png' % (name, label))
        if screenshot(svg, png, svg_size(svg)):
            ink_on_cells(what, png, golden, want)
            compare_ref(what, png, os.path.join(REF, '%s.%s.png' % (name, label)))
        what = '%s/%s.html' % (name, label)
        loads_cleanly(what, os.path.join(base, 'pictures', label + '.html'), ('<svg', 'class="scc-screen"'))

# ---------- a golden mismatch ----------

name = 'pty_bash_session'
g = os.path.join(WORK, 'changed-goldens')
src = os.path.join(STDLIB, 'goldens', name, 'xterm-80x24', 'screenshots')
shutil.copytree(src, g)
p = os.path.join(g, 'after_commands.golden')
t = open(p, encoding='utf-8').read()
open(p, 'w', encoding='utf-8').write(t.replace('hello from the PTY target', 'hello from the PTY tarqet', 1))
st, base = play(name, g, os.path.join(WORK, 'mismatch-art'))
page = os.path.join(base or '', 'pictures', 'after_commands.diff.html')
if st is None:
    pass
elif st == 0:
    fail('diff.html', 'the changed golden matched')
elif not os.path.exists(page):
    fail('diff.html', 'no %s' % page)
else:
    dom = loads_cleanly('after_commands.diff.html', page,
                        ('1 cell differs', 'id="expected"', 'id="actual"', 'class="diff"', 'tarqet'))
    # the one changed cell is outlined on both sides: row 0, column 29 (the g of target)
    outlined = re.findall(r'class="diff" x="(\d+)\.5" y="(\d+)\.5"', dom)
    if outlined != [('261', '0'), ('261', '0')]:
        fail('after_commands.diff.html', 'outlined cells %s, want row 0 column 29 on both sides' % outlined)
    loads_cleanly('mismatch index.html', os.path.join(base, 'pictures', 'index.html'),
                  ('class="result failed"', 'class="result mismatch"', '1 cell differs', 'after_commands.diff.html'))
    png = os.path.join(WORK, 'diff.png')
    if screenshot(page, png, (1540, 560)):
        compare_ref('after_commands.diff.html', png, os.path.join(REF, 'pty_bash_session.diff.png'))

# ---------- the run report (scvm run --report) ----------

pack = os.path.join(WORK, 'pty.scp')
rep = os.path.join(WORK, 'report')
st, _, err = run([SCC, '--pack', '-o', pack, os.path.join(STDLIB, 'pty_bash_session.yaml'),
                  os.path.join(STDLIB, 'pty_less_pager.yaml')])
if st == 0:
    st, _, err = run([SCVM, 'run', '-t', 'pty', '--ci', '--goldens', os.path.join(STDLIB, 'goldens'),
                      '--report', rep, pack], timeout=240)
if st != 0:
    fail('run report', 'exited %d: %s' % (st, err[-500:]))
else:
    loads_cleanly('report index.html', os.path.join(rep, 'index.html'),
                  ('2 passed', '0001-pty_less_pager.html', 'class="result passed"'), links=True)
    for page, text in (('0000-pty_bash_session.html', 'hello from the PTY target'),
                       ('0001-pty_less_pager.html', 'line 27: omega')):
        path = os.path.join(rep, page)
        frames = re.search(r'"frames":\[\n(.*?)\]\}</script>', open(path, encoding='utf-8').read(), re.S)
        n = frames.group(1).count('\n') + 1 if frames else 0
        # the script ran: the player's screen holds the poster frame's rows
        dom = loads_cleanly('report ' + page, path, ('<g transform="translate(0,', ' of %d' % n,
                                                     'class="result match"'))
        player = dom[dom.find('id="player"'):dom.find('</svg>', dom.find('id="player"'))]
        # (blank cells split a row's <text> runs: compared without spaces)
        if text.replace(' ', '') not in unescape(re.sub(r'<[^>]*>|\s', '', player)):
            fail('report ' + page, 'the player does not show %r' % text)
        # played to the end on the virtual clock: the last frame, stopped
        dom = loads_cleanly('report %s#play' % page, path, ('frame %d of %d' % (n, n), '\u25b6 play'),
                            fragment='#play', extra=('--virtual-time-budget=60000',))
        if not failures or not failures[-1].startswith('report'):
            print('ok   report %s: loads, shows its poster frame, plays to frame %d' % (page, n))

# ---------- the schedule ----------

page = os.path.join(WORK, 'schedule.html')
# the file as given is on the page: given relative, the page (and its
# pixels) do not depend on where the checkout lives
st, out, err = run([SCC, '-l', '--html', 'bugfix_with_tests.yaml'], cwd=STDLIB)
if st != 0:
    fail('scc -l --html', 'exited %d: %s' % (st, err))
else:
    open(page, 'w', encoding='utf-8').write(out)
    if run([SCC, '-l', '--html', 'bugfix_with_tests.yaml'], cwd=STDLIB)[1] != out:
        fail('scc -l --html', 'two runs wrote different pages')
    dom = loads_cleanly('schedule.html', page, ('<svg', 'agent', 'user', 'TOOL_START', '2000'))
    hovers = re.findall(r'<g class="op"><title>', dom)
    st2, listing, _ = run([SCC, '-l', os.path.join(STDLIB, 'bugfix_with_tests.yaml')])
    n_ops = len([l for l in listing.splitlines() if l[:1] in ' 0123456789' and l.strip()])
    if len(hovers) != n_ops:
        fail('schedule.html', '%d marks with hover text for %d ops' % (len(hovers), n_ops))
    else:
        print('ok   schedule.html: a mark with hover text for each of %d ops' % len(hovers))
    png = os.path.join(WORK, 'schedule.png')
    if screenshot(page, png, (1200, 420)):
        compare_ref('schedule.html', png, os.path.join(REF, 'schedule.png'))

if failures:
    print('%d failure(s): %s' % (len(failures), ', '.join(failures)))
    sys.exit(1)
print('all pictures load and look as they did')
