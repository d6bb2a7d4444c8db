// SPDX-License-Identifier: MIT
// xterm_replay.cjs - plays a recorded output stream (asciicast v2) into
// @xterm/headless and prints the same checkpoints as pty_replay.c, so
// tests/pty/differential.py can compare our libvterm screen with an
// independent emulator.
//
// usage: node xterm_replay.cjs NODE_MODULES FILE.cast
//
// A checkpoint is taken before each input event that follows output, and
// at the end.  Lines are translateToString(true) (trailing whitespace
// trimmed); a wide character is one string (its second cell is empty), as in
// our rendering.  xterm.js keeps the cursor at column `cols` while a wrap is
// pending, where libvterm keeps it on the last column: the column is clamped.
'use strict';
const fs = require('fs');
const path = require('path');

const [nodeModules, file] = process.argv.slice(2);
const { Terminal } = require(path.join(nodeModules, '@xterm', 'headless'));

const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length);
const hdr = JSON.parse(lines[0]);
const term = new Terminal({ cols: hdr.width, rows: hdr.height, allowProposedApi: true, scrollback: 0 });

// The options track DECTCEM through the core; the public API has no
// cursor-visible flag in 6.0, so read the core's when it exists.
function cursorVisible() {
  const core = term._core;
  if (core && core.coreService && typeof core.coreService.isCursorHidden === 'boolean')
    return !core.coreService.isCursorHidden;
  return null;
}

function snapshot(event) {
  const buf = term.buffer.active;
  const out = [];
  for (let y = 0; y < term.rows; y++) {
    const l = buf.getLine(buf.viewportY + y);
    out.push(l ? l.translateToString(true).replace(/ +$/, '') : '');
  }
  return {
    event,
    rows: term.rows,
    cols: term.cols,
    cursor: { row: buf.cursorY, col: Math.min(buf.cursorX, term.cols - 1), visible: cursorVisible() },
    alternate_screen: buf.type === 'alternate',
    lines: out,
  };
}

function write(data) {
  return new Promise((resolve) => term.write(data, resolve));
}

(async () => {
  const shots = [];
  let fed = false;
  let event = 0;
  for (const line of lines.slice(1)) {
    const [, code, data] = JSON.parse(line);
    if (code === 'o') {
      await write(data);
      fed = true;
    } else if (code === 'i' && fed) {
      shots.push(snapshot(event));
      fed = false;
    } else if (code === 'r') {
      const m = /^(\d+)x(\d+)$/.exec(data);
      if (m) term.resize(Number(m[1]), Number(m[2]));
    }
    event++;
  }
  shots.push(snapshot(event));
  process.stdout.write(JSON.stringify(shots) + '\n');
})().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(2);
});
