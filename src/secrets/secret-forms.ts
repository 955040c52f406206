/**
 * The encodings a secret can take in a command's output, each as a needle the redactor looks for.
 * Every needle is free of separator characters (see text-view.ts), like the text it is matched in.
 */
export function secretNeedles(secret: string): { plain: string[]; decoded: string[] } {
  const bytes = Buffer.from(secret, 'utf8');
  const encoded = [
    ...[0, 1, 2].flatMap((shift) => {
      const b64 = base64Core(bytes, shift);
      return [b64, b64.replace(/\+/g, '-').replace(/\//g, '_')];
    }),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ];
  const forms = (text: string) => unique([text, ...encoded].map(squeeze).filter((needle) => needle.length >= 8));
  // The percent-decoded view holds bytes (one char per %XX), so there the secret is its UTF-8 bytes.
  return { plain: forms(secret), decoded: forms(bytes.toString('latin1')) };
}

/**
 * The base64 characters that encode only the secret's bytes when it starts `shift` bytes into a
 * longer encoded string: the first and last characters also carry bits of the neighbouring
 * bytes, so they are dropped (the approach of secret scanners that look for encoded keys).
 */
export function base64Core(bytes: Buffer, shift: number): string {
  const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64').replace(/=+$/, '');
  const first = Math.ceil((8 * shift) / 6);
  const last = Math.floor((8 * (shift + bytes.length)) / 6) - 1;
  return encoded.slice(first, last + 1);
}

/** Separators a secret may be broken up with: whitespace, quotes, `+` and `,` (string concatenation). */
const SEPARATORS = " \t\n\r\v\f\"'`+,\u00a0\u2028\u2029\ufeff";
const ASCII_SEPARATOR = new Uint8Array(128);
for (const c of SEPARATORS) if (c.charCodeAt(0) < 128) ASCII_SEPARATOR[c.charCodeAt(0)] = 1;

export function isSeparator(code: number): boolean {
  return code < 128 ? ASCII_SEPARATOR[code] === 1 : SEPARATORS.includes(String.fromCharCode(code));
}

function squeeze(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) if (!isSeparator(text.charCodeAt(i))) out += text[i];
  return out;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
