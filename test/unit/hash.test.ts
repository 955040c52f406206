import { fnv1a64 } from '../../src/loop/hash';

describe('fnv1a64', () => {
  test.each<[string, string]>([
    ['', 'cbf29ce484222325'],
    ['a', 'af63dc4c8601ec8c'],
    ['foobar', '85944171f73967e8'],
  ])('the published FNV-1a 64 test vector for %j', (text, expected) => {
    expect(fnv1a64(text)).toBe(expected);
  });

  /** The reference: FNV-1a over TextEncoder's bytes with BigInt arithmetic (tests may use both). */
  const reference = (text: string): string => {
    let h = 0xcbf29ce484222325n;
    for (const byte of new TextEncoder().encode(text)) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
    return h.toString(16).padStart(16, '0');
  };

  test.each(['héllo wörld', '日本語のテキスト', '😀 emoji and 𝄞', 'a lone \ud800 surrogate', 'tail surrogate \udc00', 'x'.repeat(5000)])(
    'hashes the UTF-8 bytes of %j like the BigInt reference',
    (text) => {
      expect(fnv1a64(text)).toBe(reference(text));
    },
  );

  test('16 lowercase hex digits, and no collision over 20,000 near-identical strings', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const hash = fnv1a64(`grep -n foo src/file-${i}.ts`);
      expect(hash).toMatch(/^[0-9a-f]{16}$/);
      seen.add(hash);
    }
    expect(seen.size).toBe(20_000);
  });
});
