// Draws the CampusBridge icon (an arch bridge on a blue tile) and writes the files the installers
// and the tray use. Pure Node, same pixels on every run: `node build/scripts/make-icons.mjs`.
//   build/icons/icon.png       512x512, Linux and macOS (electron-builder derives the other sizes)
//   build/icons/icon.ico       16–256, Windows executable and NSIS installer
//   build/icons/tray.png       32x32, and tray@2x.png 64x64 for high-density screens
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = path.join(root, 'build', 'icons');

const TOP = [29, 78, 216];
const BOTTOM = [13, 148, 136];
const SAMPLES = 4;

function insideRoundedRect(u, v, inset, radius) {
  const lo = inset + radius;
  const hi = 1 - inset - radius;
  const dx = Math.max(lo - u, 0, u - hi);
  const dy = Math.max(lo - v, 0, v - hi);
  return dx * dx + dy * dy <= radius * radius && u >= inset && u <= 1 - inset && v >= inset && v <= 1 - inset;
}

/** The bridge, in the unit square: a through-arch over a deck, with five hangers. */
function insideBridge(u, v) {
  const deckTop = 0.62;
  const deckBottom = 0.68;
  if (u >= 0.14 && u <= 0.86 && v >= deckTop && v <= deckBottom) return true;
  const dx = u - 0.5;
  const dy = v - deckBottom;
  const distance = Math.sqrt(dx * dx + dy * dy);
  if (v <= deckBottom && distance >= 0.27 && distance <= 0.33) return true;
  if (v < deckTop && distance < 0.27) {
    for (const x of [0.34, 0.42, 0.5, 0.58, 0.66]) if (Math.abs(u - x) <= 0.012) return true;
  }
  // Piers under the deck, down to the water line.
  if (v > deckBottom && v <= 0.82 && (Math.abs(u - 0.2) <= 0.025 || Math.abs(u - 0.8) <= 0.025)) return true;
  return false;
}

/** RGBA pixels, supersampled so the edges are smooth at every size. */
function drawIcon(size) {
  const pixels = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let tile = 0;
      let bridge = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const u = (x + (sx + 0.5) / SAMPLES) / size;
          const v = (y + (sy + 0.5) / SAMPLES) / size;
          if (!insideRoundedRect(u, v, 0.04, 0.18)) continue;
          tile++;
          if (insideBridge(u, v)) bridge++;
        }
      }
      const total = SAMPLES * SAMPLES;
      const t = y / (size - 1);
      const white = tile ? bridge / tile : 0;
      const offset = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) {
        const background = TOP[c] + (BOTTOM[c] - TOP[c]) * t;
        pixels[offset + c] = Math.round(background * (1 - white) + 255 * white);
      }
      pixels[offset + 3] = Math.round((255 * tile) / total);
    }
  }
  return pixels;
}

function pngChunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

function encodePng(size, pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bits per channel
  header[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 32-bit BMP entry as ICO files hold it: no file header, double height, bottom-up BGRA, an empty AND mask. */
function encodeIcoBitmap(size, pixels) {
  const info = Buffer.alloc(40);
  const maskRow = Math.ceil(size / 32) * 4;
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(size, 4);
  info.writeInt32LE(size * 2, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(size * size * 4 + maskRow * size, 20);
  const bgra = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = (y * size + x) * 4;
      const to = ((size - 1 - y) * size + x) * 4;
      bgra[to] = pixels[from + 2];
      bgra[to + 1] = pixels[from + 1];
      bgra[to + 2] = pixels[from];
      bgra[to + 3] = pixels[from + 3];
    }
  }
  return Buffer.concat([info, bgra, Buffer.alloc(maskRow * size)]);
}

/** Small sizes as bitmaps (read by every Windows tool), 256 as PNG (how Windows stores that size). */
function encodeIco(sizes) {
  const images = sizes.map((size) => {
    const pixels = drawIcon(size);
    return { size, data: size >= 256 ? encodePng(size, pixels) : encodeIcoBitmap(size, pixels) };
  });
  const header = Buffer.alloc(6 + 16 * images.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(images.length, 4);
  let offset = header.length;
  images.forEach(({ size, data }, index) => {
    const entry = 6 + 16 * index;
    header[entry] = size >= 256 ? 0 : size; // 0 means 256
    header[entry + 1] = size >= 256 ? 0 : size;
    header.writeUInt16LE(1, entry + 4); // planes
    header.writeUInt16LE(32, entry + 6); // bits per pixel
    header.writeUInt32LE(data.length, entry + 8);
    header.writeUInt32LE(offset, entry + 12);
    offset += data.length;
  });
  return Buffer.concat([header, ...images.map((image) => image.data)]);
}

export function makeIcons(dir = outDir) {
  fs.mkdirSync(dir, { recursive: true });
  const files = {
    'icon.png': encodePng(512, drawIcon(512)),
    'icon.ico': encodeIco([16, 24, 32, 48, 64, 256]),
    'tray.png': encodePng(32, drawIcon(32)),
    'tray@2x.png': encodePng(64, drawIcon(64)),
  };
  for (const [name, data] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), data);
  return Object.keys(files).map((name) => path.join(dir, name));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const file of makeIcons()) console.error(`wrote ${path.relative(root, file)}`);
}
