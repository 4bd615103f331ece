// A complete, valid TrueType font of under 1 KB, built in code so the fixtures hold no opaque binary:
// two glyphs (.notdef, empty; and a full-width box) with every printable ASCII character mapped
// to the box. Chromium's font sanitizer (OTS) accepts it, so `document.fonts` reports the face as
// loaded and text set in it is one em wide per character, which a test can measure.

const UNITS_PER_EM = 1000;
const BOX_ADVANCE = 1000;

/** The font's bytes (serve as `font/ttf`). */
export function tinyTrueTypeFont(familyName = 'WrtuiE2E'): Buffer {
  const tables: Record<string, Buffer> = {
    'OS/2': os2(),
    cmap: cmap(),
    glyf: glyf(),
    head: head(),
    hhea: hhea(),
    hmtx: words([500, 0, BOX_ADVANCE, 100]),
    loca: words([0, 0, glyf().length / 2]), // short offsets: byte offset / 2
    maxp: maxp(),
    name: name(familyName),
    post: post(),
  };
  return assemble(tables);
}

function words(values: number[]): Buffer {
  const buffer = Buffer.alloc(values.length * 2);
  values.forEach((value, i) => buffer.writeUInt16BE(value & 0xffff, i * 2));
  return buffer;
}

function head(): Buffer {
  const b = Buffer.alloc(54);
  b.writeUInt32BE(0x00010000, 0); // version
  b.writeUInt32BE(0x00010000, 4); // fontRevision
  b.writeUInt32BE(0, 8); // checkSumAdjustment, patched by assemble()
  b.writeUInt32BE(0x5f0f3cf5, 12); // magicNumber
  b.writeUInt16BE(0x000b, 16); // flags: baseline at y=0, lsb at x=0, integer ppem
  b.writeUInt16BE(UNITS_PER_EM, 18);
  // created, modified (LONGDATETIME): 0
  b.writeInt16BE(0, 36); // xMin
  b.writeInt16BE(0, 38); // yMin
  b.writeInt16BE(900, 40); // xMax
  b.writeInt16BE(800, 42); // yMax
  b.writeUInt16BE(0, 44); // macStyle
  b.writeUInt16BE(8, 46); // lowestRecPPEM
  b.writeInt16BE(2, 48); // fontDirectionHint
  b.writeInt16BE(0, 50); // indexToLocFormat: short
  b.writeInt16BE(0, 52); // glyphDataFormat
  return b;
}

function hhea(): Buffer {
  const b = Buffer.alloc(36);
  b.writeUInt32BE(0x00010000, 0);
  b.writeInt16BE(800, 4); // ascender
  b.writeInt16BE(-200, 6); // descender
  b.writeInt16BE(0, 8); // lineGap
  b.writeUInt16BE(BOX_ADVANCE, 10); // advanceWidthMax
  b.writeInt16BE(0, 12); // minLeftSideBearing
  b.writeInt16BE(100, 14); // minRightSideBearing
  b.writeInt16BE(900, 16); // xMaxExtent
  b.writeInt16BE(1, 18); // caretSlopeRise
  b.writeInt16BE(0, 20); // caretSlopeRun
  // caretOffset, 4 reserved, metricDataFormat: 0
  b.writeUInt16BE(2, 34); // numberOfHMetrics
  return b;
}

function maxp(): Buffer {
  const b = Buffer.alloc(32);
  b.writeUInt32BE(0x00010000, 0); // version 1.0 (TrueType outlines)
  b.writeUInt16BE(2, 4); // numGlyphs
  b.writeUInt16BE(4, 6); // maxPoints
  b.writeUInt16BE(1, 8); // maxContours
  b.writeUInt16BE(2, 14); // maxZones
  return b;
}

/** Glyph 0 (.notdef) is empty; glyph 1 is a box from (100,0) to (900,800). */
function glyf(): Buffer {
  const header = Buffer.alloc(10);
  header.writeInt16BE(1, 0); // numberOfContours
  header.writeInt16BE(100, 2);
  header.writeInt16BE(0, 4);
  header.writeInt16BE(900, 6);
  header.writeInt16BE(800, 8);
  const body = Buffer.concat([
    words([3]), // endPtsOfContours
    words([0]), // instructionLength
    Buffer.from([1, 1, 1, 1]), // flags: on-curve, 16-bit deltas
    words([100, 0, 800, 0]), // x deltas
    words([0, 800, 0, -800]), // y deltas
  ]);
  return pad(Buffer.concat([header, body]), 2);
}

/** A format 4 subtable (Windows, Unicode BMP) mapping each of U+0020–U+007E to glyph 1. */
function cmap(): Buffer {
  const first = 0x20;
  const last = 0x7e;
  const glyphIds = new Array<number>(last - first + 1).fill(1);
  const subtable = Buffer.concat([
    words([4, 32 + glyphIds.length * 2, 0]), // format, length, language
    words([4, 4, 1, 0]), // segCountX2, searchRange, entrySelector, rangeShift
    words([last, 0xffff]), // endCode
    words([0]), // reservedPad
    words([first, 0xffff]), // startCode
    words([0, 1]), // idDelta (the final 0xFFFF segment maps to glyph 0)
    words([4, 0]), // idRangeOffset: segment 0 reads glyphIdArray, 4 bytes past its own slot
    words(glyphIds), // glyphIdArray
  ]);
  const header = Buffer.concat([words([0, 1, 3, 1]), Buffer.from([0, 0, 0, 12])]);
  return Buffer.concat([header, subtable]);
}

function os2(): Buffer {
  const b = Buffer.alloc(96); // version 4
  b.writeUInt16BE(4, 0);
  b.writeInt16BE(BOX_ADVANCE, 2); // xAvgCharWidth
  b.writeUInt16BE(400, 4); // usWeightClass
  b.writeUInt16BE(5, 6); // usWidthClass
  b.writeUInt16BE(0, 8); // fsType: installable
  for (const [offset, value] of [[10, 650], [12, 600], [14, 0], [16, 75], [18, 650], [20, 600], [22, 0], [24, 350], [26, 50], [28, 300]] as const) {
    b.writeInt16BE(value, offset); // sub/superscript sizes and offsets, strikeout
  }
  b.writeUInt32BE(1, 42); // ulUnicodeRange1: Basic Latin
  b.write('WRTU', 58, 'latin1'); // achVendID
  b.writeUInt16BE(0x0040, 62); // fsSelection: REGULAR
  b.writeUInt16BE(0x20, 64); // usFirstCharIndex
  b.writeUInt16BE(0x7e, 66); // usLastCharIndex
  b.writeInt16BE(800, 68); // sTypoAscender
  b.writeInt16BE(-200, 70); // sTypoDescender
  b.writeInt16BE(0, 72); // sTypoLineGap
  b.writeUInt16BE(800, 74); // usWinAscent
  b.writeUInt16BE(200, 76); // usWinDescent
  b.writeUInt32BE(1, 78); // ulCodePageRange1: Latin 1
  b.writeInt16BE(500, 86); // sxHeight
  b.writeInt16BE(700, 88); // sCapHeight
  b.writeUInt16BE(0, 90); // usDefaultChar
  b.writeUInt16BE(0x20, 92); // usBreakChar
  b.writeUInt16BE(1, 94); // usMaxContext
  return b;
}

function name(family: string): Buffer {
  const records: [number, string][] = [
    [1, family],
    [2, 'Regular'],
    [4, `${family} Regular`],
    [6, `${family}-Regular`],
  ];
  const strings = records.map(([, text]) => Buffer.from(text, 'utf16le').swap16()); // UTF-16BE
  const header = words([0, records.length, 6 + records.length * 12]);
  let offset = 0;
  const entries = records.map(([nameId], i) => {
    const length = strings[i]!.length;
    const entry = words([3, 1, 0x409, nameId, length, offset]);
    offset += length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...strings]);
}

function post(): Buffer {
  const b = Buffer.alloc(32);
  b.writeUInt32BE(0x00030000, 0); // version 3: no glyph names
  b.writeInt16BE(-100, 8); // underlinePosition
  b.writeInt16BE(50, 10); // underlineThickness
  return b;
}

function pad(buffer: Buffer, to: number): Buffer {
  const extra = (to - (buffer.length % to)) % to;
  return extra === 0 ? buffer : Buffer.concat([buffer, Buffer.alloc(extra)]);
}

function checksum(buffer: Buffer): number {
  const padded = pad(buffer, 4);
  let sum = 0;
  for (let i = 0; i < padded.length; i += 4) sum = (sum + padded.readUInt32BE(i)) >>> 0;
  return sum;
}

function assemble(tables: Record<string, Buffer>): Buffer {
  const tags = Object.keys(tables).sort(); // binary order: 'OS/2' sorts before the lower-case tags
  const numTables = tags.length;
  const power = 2 ** Math.floor(Math.log2(numTables));
  const directory = Buffer.concat([
    Buffer.from([0, 1, 0, 0]), // sfntVersion 1.0: TrueType outlines
    words([numTables, power * 16, Math.log2(power), numTables * 16 - power * 16]),
  ]);
  const records: Buffer[] = [];
  const bodies: Buffer[] = [];
  let offset = 12 + numTables * 16;
  for (const tag of tags) {
    const table = tables[tag]!;
    const record = Buffer.alloc(16);
    record.write(tag, 0, 'latin1');
    record.writeUInt32BE(checksum(table), 4);
    record.writeUInt32BE(offset, 8);
    record.writeUInt32BE(table.length, 12);
    records.push(record);
    const padded = pad(table, 4);
    bodies.push(padded);
    offset += padded.length;
  }
  const font = Buffer.concat([directory, ...records, ...bodies]);
  // head.checkSumAdjustment makes the whole file sum to 0xB1B0AFBA.
  const headOffset = 12 + numTables * 16 + bodies.slice(0, tags.indexOf('head')).reduce((n, body) => n + body.length, 0);
  font.writeUInt32BE((0xb1b0afba - checksum(font)) >>> 0, headOffset + 8);
  return font;
}
