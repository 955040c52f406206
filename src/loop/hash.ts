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
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
    }
    // A lone surrogate is hashed as U+FFFD, as TextEncoder would encode it.
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) mix(code);
    else if (code < 0x800) {
      mix(0xc0 | (code >> 6));
      mix(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      mix(0xe0 | (code >> 12));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    } else {
      mix(0xf0 | (code >> 18));
      mix(0x80 | ((code >> 12) & 0x3f));
      mix(0x80 | ((code >> 6) & 0x3f));
      mix(0x80 | (code & 0x3f));
    }
  }
  return hex8(hi) + hex8(lo);
}

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
