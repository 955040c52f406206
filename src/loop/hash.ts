import { forEachUtf8Byte } from './utf8';

/**
 * Held in a module constant: in the workflow sandbox a global such as `Math` is looked up through the
 * context's global object on every use. With `Math.imul` in the loop, hashing the peers bench's 4 KiB
 * tool results took 22 ms of the workflow thread in a process's last 1.2 s (about 0.5 ms a result);
 * with the constant, 2-4 ms (CPU profiles, BENCHMARKS.md).
 */
const imul = Math.imul;

/**
 * FNV-1a, 64 bits, over the UTF-8 bytes of a string, as 16 hex digits. Written with two
 * 32-bit halves so it needs neither BigInt nor a Node built-in (workflow sandbox): equality
 * fingerprints want a stable hash, not a cryptographic one. Every tool result is hashed in the
 * workflow thread: the halves stay local int32 variables (no closure holds them, so V8 keeps them
 * in registers instead of allocating a number per byte), and ASCII is mixed without the encoder.
 */
export function fnv1a64(text: string): string {
  // Offset basis 0xcbf29ce484222325 as two halves.
  let hi = 0xcbf29ce4 | 0;
  let lo = 0x84222325 | 0;
  const encoded: number[] = [];
  const keep = (byte: number): void => void encoded.push(byte);
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    let count = 1;
    if (code < 0x80) i++;
    else {
      // The run of non-ASCII characters goes to the encoder whole: an ASCII character never splits
      // a surrogate pair, so the encoder sees each pair (and each lone surrogate) as it would in the text.
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) >= 0x80) end++;
      encoded.length = 0;
      forEachUtf8Byte(text.slice(i, end), keep);
      count = encoded.length;
      i = end;
    }
    for (let k = 0; k < count; k++) {
      const unsigned = ((code < 0x80 ? code : (encoded[k] as number)) ^ lo) >>> 0;
      // h * 0x100000001b3 mod 2^64 = h * 0x1b3 + (h << 40); the low product stays below 2^41.
      const low = unsigned * 0x1b3;
      hi = (imul(hi, 0x1b3) + ((low / 0x100000000) | 0) + (unsigned << 8)) | 0;
      lo = low | 0;
    }
  }
  return hex8(hi) + hex8(lo);
}

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
