import { isSeparator } from './secret-forms';

/**
 * A text with the noise a secret may be broken up by taken out, and for every character left the
 * span of the original text it came from, so that a match in the view redacts the original.
 */
export interface TextView {
  text: string;
  /** Where view character j starts in the original text. */
  from: Int32Array;
  /** Where it ends (exclusive): 3 characters later for a decoded `%XX`. */
  to: Int32Array;
}

export interface ViewOptions {
  /** `%XX` (either case) becomes the byte it encodes, as one char (the secret's UTF-8 bytes match it). */
  decodePercent: boolean;
  /** Drops the numbering tools put before lines and `\n` written as an escape, so a secret split over lines still reads whole. */
  dropLinePrefixes: boolean;
}

/**
 * Line numbering of read_file (`12: `), `cat -n` (`    12\t`) and grep (`path:12: `, `path-12-`):
 * without it a secret printed over two lines would have a number in the middle.
 */
const LINE_PREFIX = /[ \t]*(?:[^\s:]{1,200}[:-])?\d{1,9}[:\t-] ?/y;
const HEX = /^[0-9a-fA-F]{2}$/;

export function textView(text: string, options: ViewOptions): TextView {
  const codes = new Uint16Array(text.length);
  const from = new Int32Array(text.length);
  const to = new Int32Array(text.length);
  let n = 0;
  let lineStart = true;
  let i = 0;
  while (i < text.length) {
    if (lineStart && options.dropLinePrefixes) {
      lineStart = false;
      LINE_PREFIX.lastIndex = i;
      if (LINE_PREFIX.test(text)) {
        i = LINE_PREFIX.lastIndex;
        continue;
      }
    }
    const code = text.charCodeAt(i);
    if (code === 0x0a) lineStart = true;
    if (isSeparator(code)) {
      i += 1;
      continue;
    }
    if (options.dropLinePrefixes && code === 0x5c /* \ */ && 'nrt'.includes(text[i + 1] ?? '')) {
      lineStart = text[i + 1] === 'n';
      i += 2;
      continue;
    }
    if (options.decodePercent && code === 0x25 /* % */ && HEX.test(text.slice(i + 1, i + 3))) {
      const byte = parseInt(text.slice(i + 1, i + 3), 16);
      if (!isSeparator(byte)) {
        codes[n] = byte;
        from[n] = i;
        to[n++] = i + 3;
      }
      i += 3;
      continue;
    }
    codes[n] = code;
    from[n] = i;
    to[n++] = i + 1;
    i += 1;
  }
  return { text: fromCodes(codes.subarray(0, n)), from: from.subarray(0, n), to: to.subarray(0, n) };
}

const UTF16 = new TextDecoder('utf-16le');

function fromCodes(codes: Uint16Array): string {
  return UTF16.decode(codes);
}
