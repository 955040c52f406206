import { forEachUtf8Byte } from './utf8';

/**
 * FNV-1a, 64 bits, over the UTF-8 bytes of a string, as 16 hex digits. Written with two
 * 32-bit halves so it needs neither BigInt nor a Node built-in (workflow sandbox): equality
 * fingerprints want a stable hash, not a cryptographic one.
 */
export function fnv1a64(text: string): string {
  // Offset basis 0xcbf29ce484222325 as two halves.
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  const mix = (byte: number): void => {
    lo = (lo ^ byte) >>> 0;
    // h * 0x100000001b3 mod 2^64 = h * 0x1b3 + (h << 40); each product stays below 2^53.
    const low = lo * 0x1b3;
    const carry = Math.floor(low / 0x100000000);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = low >>> 0;
  };
  forEachUtf8Byte(text, mix);
  return hex8(hi) + hex8(lo);
}

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
