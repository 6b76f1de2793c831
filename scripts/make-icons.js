// Writes the extension icons (assets/icon-{16,32,48,128}.png): a blue shield with a white
// check mark on a transparent background. Pure Node (zlib), no image library.
// Run with `node scripts/make-icons.js`; the PNGs are committed, so builds never run this.
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHIELD = [0x1d, 0x4e, 0xd8];
const EDGE = [0x17, 0x3a, 0xa0];
const MARK = [0xff, 0xff, 0xff];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** Shield outline in unit coordinates (0..1): flat top, straight sides, pointed bottom. */
function inShield(x, y, inset = 0) {
  const top = 0.1 + inset;
  const left = 0.16 + inset;
  const right = 0.84 - inset;
  const mid = 0.55;
  const bottom = 0.93 - inset * 1.6;
  if (y < top || x < left || x > right) return false;
  if (y <= mid) return true;
  // Lower part: the sides curve in to the point at (0.5, bottom).
  const t = (y - mid) / (bottom - mid);
  if (t > 1) return false;
  const half = (right - left) / 2;
  const w = half * Math.sqrt(Math.max(0, 1 - t * t));
  return Math.abs(x - 0.5) <= w;
}

function distToSegment(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

function inCheck(x, y) {
  const w = 0.065;
  return (
    distToSegment(x, y, 0.33, 0.5, 0.46, 0.63) < w ||
    distToSegment(x, y, 0.46, 0.63, 0.69, 0.36) < w
  );
}

function render(size) {
  const ss = 4;
  const rows = [];
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 4);
    row[0] = 0; // filter: none
    for (let px = 0; px < size; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const x = (px + (sx + 0.5) / ss) / size;
          const y = (py + (sy + 0.5) / ss) / size;
          if (!inShield(x, y)) continue;
          const colour = inCheck(x, y) ? MARK : inShield(x, y, 0.05) ? SHIELD : EDGE;
          r += colour[0];
          g += colour[1];
          b += colour[2];
          a += 1;
        }
      }
      const o = 1 + px * 4;
      if (a > 0) {
        row[o] = Math.round(r / a);
        row[o + 1] = Math.round(g / a);
        row[o + 2] = Math.round(b / a);
        row[o + 3] = Math.round((255 * a) / (ss * ss));
      }
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

for (const size of [16, 32, 48, 128]) {
  const file = join(root, 'assets', `icon-${size}.png`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, render(size));
  console.log(file);
}
