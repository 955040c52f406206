/**
 * The UTF-8 bytes of a string as TextEncoder writes them (a lone surrogate becomes U+FFFD), one
 * call each, without TextEncoder or Buffer: the workflow sandbox's hashes need them.
 */
export function forEachUtf8Byte(text: string, visit: (byte: number) => void): void {
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (code < 0x80) visit(code);
    else if (code < 0x800) {
      visit(0xc0 | (code >> 6));
      visit(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      visit(0xe0 | (code >> 12));
      visit(0x80 | ((code >> 6) & 0x3f));
      visit(0x80 | (code & 0x3f));
    } else {
      visit(0xf0 | (code >> 18));
      visit(0x80 | ((code >> 12) & 0x3f));
      visit(0x80 | ((code >> 6) & 0x3f));
      visit(0x80 | (code & 0x3f));
    }
  }
}
