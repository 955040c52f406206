import { ApplicationFailure } from '@temporalio/common';
import { createRedactor, REDACTED } from '../../src/secrets/redact';
import { redactError, redactToolOutcome, withRedaction } from '../../src/secrets/redacting-activity';
import { base64Core } from '../../src/secrets/secret-forms';
import { secretsFromEnv } from '../../src/secrets/worker-secrets';

const SECRET = 'sk-test-Zq8vR2mW7pX4kL9nB3cT6yH1';
const redactor = createRedactor([SECRET]);
const redact = (text: string) => redactor.redact(text);
const b64 = (text: string) => Buffer.from(text).toString('base64');
const b64url = (text: string) => Buffer.from(text).toString('base64url');

describe('createRedactor finds a secret', () => {
  test.each([
    ['as is', `key=${SECRET};`],
    ['twice', `${SECRET} and ${SECRET}`],
    ['in two halves on two lines', `${SECRET.slice(0, 14)}\n${SECRET.slice(14)}`],
    ['in numbered lines (read_file)', `1: export KEY=${SECRET.slice(0, 10)}\n2: ${SECRET.slice(10)}\n3: done`],
    ['in numbered lines (cat -n)', `     1\t${SECRET.slice(0, 10)}\n     2\t${SECRET.slice(10)}`],
    ['in grep lines', `a.txt:7: ${SECRET.slice(0, 10)}\na.txt:8: ${SECRET.slice(10)}`],
    ['in chunks with spaces', SECRET.match(/.{1,4}/g)!.join(' ')],
    ['concatenated in code', `const k = "${SECRET.slice(0, 9)}" + '${SECRET.slice(9, 20)}' +\n  \`${SECRET.slice(20)}\``],
    ['as a JSON string with an escaped newline', JSON.stringify(`${SECRET.slice(0, 12)}\n${SECRET.slice(12)}`)],
    ['percent-encoded (encodeURIComponent)', `?key=${encodeURIComponent(SECRET)}&x=1`],
    ['percent-encoded, every byte, lower case', [...Buffer.from(SECRET)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')],
    ['percent-encoded, every byte, upper case', [...Buffer.from(SECRET)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('')],
    ['percent-encoded, mixed', `${SECRET.slice(0, 5)}%${SECRET.charCodeAt(5).toString(16)}${SECRET.slice(6)}`],
    ['base64', b64(SECRET)],
    ['base64 with a trailing newline (echo | base64)', b64(`${SECRET}\n`)],
    ['base64 wrapped at 76 characters', b64(`Authorization: Bearer ${SECRET} and some more text around it`).replace(/(.{76})/g, '$1\n')],
    ['base64url', b64url(`x${SECRET}`)],
    ['hex', Buffer.from(SECRET).toString('hex')],
    ['hex, upper case', Buffer.from(SECRET).toString('hex').toUpperCase()],
    ['hex in groups (xxd -p, od)', Buffer.from(SECRET).toString('hex').replace(/(.{8})/g, '$1 ')],
  ])('%s', (_form, text) => {
    const out = redact(text);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain(SECRET);
    expect(out.replace(/[\s"'`+,]/g, '')).not.toContain(SECRET.slice(4, 20));
  });

  test.each([0, 1, 2, 3, 4, 5])('inside a longer base64 and base64url string, %i bytes in', (shift) => {
    const framed = `${'p'.repeat(shift)}{"token":"${SECRET}","user":"me"}`;
    for (const encoded of [b64(framed), b64url(framed)]) {
      const out = redact(`data: ${encoded} end`);
      expect(out).toContain(REDACTED);
      expect(out.startsWith('data: ')).toBe(true);
      expect(out.endsWith(' end')).toBe(true);
      // What is left of the encoding decodes to no part of the secret longer than its edges.
      const left = out.replace(/^data: |  end$/g, '').split(REDACTED).map((part) => Buffer.from(part.trim(), 'base64').toString('latin1'));
      expect(left.join('|')).not.toContain(SECRET.slice(2, -2));
    }
  });

  test('keeps the text around it, with one [redacted] per occurrence', () => {
    expect(redact(`before ${SECRET} middle ${b64(SECRET)} after`)).toBe(`before ${REDACTED} middle ${REDACTED} after`.replace(/(?= after)/, 'E='));
    expect(redact(`1: a\n2: ${SECRET.slice(0, 16)}\n3: ${SECRET.slice(16)}\n4: b`)).toBe(`1: a\n2: ${REDACTED}\n4: b`);
  });
});

describe('createRedactor leaves other text alone', () => {
  test('ordinary text, code and encodings of other values are returned unchanged', () => {
    const text = [
      'npm test passed: 42 tests, 0 failures',
      `const b = "${b64('hello world, nothing secret here')}";`,
      Buffer.from('not the key at all').toString('hex'),
      '%7B%22a%22%3A1%7D sk-test-something-else',
      SECRET.slice(0, 20),
    ].join('\n');
    expect(redact(text)).toBe(text);
  });

  test('values shorter than 8 characters are never secrets', () => {
    const short = createRedactor(['hunter2', 'abc', '', undefined]);
    expect(short.active).toBe(false);
    expect(short.redact('my password is hunter2')).toBe('my password is hunter2');
  });

  test('a secret that holds separators and % characters is still found as printed', () => {
    const odd = 'p@ss word+%41with,quotes"';
    const r = createRedactor([odd]);
    expect(r.redact(`x ${odd} y`)).toBe(`x ${REDACTED} y`);
    // Encoded, the separator at its end is not part of the match (the views drop separators).
    expect(r.redact(`x ${encodeURIComponent(odd)} y`)).toBe(`x ${REDACTED}%22 y`);
  });

  test('30,000 characters of output and 3 secrets: a few milliseconds', () => {
    const r = createRedactor([SECRET, 'ghp_0123456789abcdefABCDEF0123456789ab', 'c2VjcmV0LWVuY3J5cHRpb24ta2V5LTMyLWJ5dGVzISE=']);
    const line = (i: number) => `${i}: src/file-${i}.ts: const value = computeSomething(${i}, "text %20 with" + 'quotes', 0xdeadbeef);\n`;
    let text = '';
    for (let i = 0; text.length < 30_000; i++) text += line(i);
    text = text.slice(0, 29_900) + b64(SECRET) + '\n';
    r.redact(text); // warm up
    const runs = 50;
    const started = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) r.redact(text);
    const ms = Number(process.hrtime.bigint() - started) / 1e6 / runs;
    console.log(`redaction: ${text.length} chars, 3 secrets: ${ms.toFixed(2)} ms per call`);
    expect(r.redact(text)).toContain(REDACTED);
    expect(ms).toBeLessThan(50);
  });
});

describe('base64Core', () => {
  test('the characters that depend on the secret only, at each alignment', () => {
    const bytes = Buffer.from('abcdefgh');
    expect(base64Core(bytes, 0)).toBe('YWJjZGVmZ2');
    for (const shift of [0, 1, 2]) {
      for (const pad of ['', 'x', 'xy', 'xyz']) {
        const encoded = Buffer.concat([Buffer.alloc(shift, 'q'), Buffer.from(pad), bytes, Buffer.from('tail')]).toString('base64');
        if ((shift + pad.length) % 3 === shift) expect(encoded).toContain(base64Core(bytes, shift));
      }
    }
  });
});

test("a tool's outcome: its output or message, and the summary or error of the checkpoint that came back with it", () => {
  const checkpoint = { ok: true as const, id: 't', workspace: '/w', store: '/s', changed: 1, files: 1, skipped: 0, summary: `1 file changed: ${SECRET}.txt` };
  const ok = redactToolOutcome({ ok: true, output: `wrote ${SECRET}`, checkpoint }, redactor);
  expect(JSON.stringify(ok)).not.toContain(SECRET);
  expect(ok).toMatchObject({ output: `wrote ${REDACTED}`, checkpoint: { summary: `1 file changed: ${REDACTED}.txt`, id: 't' } });
  const failed = redactToolOutcome({ ok: false, errorType: 'McpError', message: SECRET, checkpoint: { ok: false, error: `git: ${SECRET}` } }, redactor);
  expect(JSON.stringify(failed)).not.toContain(SECRET);
});

describe('redactError', () => {
  test('message, stack, cause chain and ApplicationFailure details, the error keeping its class', () => {
    const cause = new Error(`upstream said Bearer ${SECRET}`);
    const failure = ApplicationFailure.create({ message: `401 for ${SECRET}`, type: 'AuthenticationError', details: [{ header: `Bearer ${SECRET}` }, b64(SECRET)], cause });
    const out = redactError(failure, redactor) as ApplicationFailure;
    expect(out).toBe(failure);
    expect(out.type).toBe('AuthenticationError');
    expect(out.message).toBe(`401 for ${REDACTED}`);
    expect(out.stack).not.toContain(SECRET);
    expect(out.cause?.message).toBe(`upstream said Bearer ${REDACTED}`);
    expect(out.cause?.stack).not.toContain(SECRET);
    // A base64 form keeps its last characters: they also depend on what follows (see base64Core).
    expect(out.details).toEqual([{ header: `Bearer ${REDACTED}` }, `${REDACTED}E=`]);
  });

  test('withRedaction: a thrown error and the result both pass through the redactor', async () => {
    const throwing = withRedaction(async () => {
      throw new TypeError(`fetch ${encodeURIComponent(SECRET)}`);
    }, redactor);
    await expect(throwing()).rejects.toThrow(new TypeError(`fetch ${REDACTED}`));
    const returning = withRedaction(async (x: string) => ({ output: x }), redactor, (r, red) => ({ output: red.redact(r.output) }));
    expect(await returning(SECRET)).toEqual({ output: REDACTED });
  });
});

describe('secretsFromEnv', () => {
  test('the named keys and every variable named like a credential, 8 characters or more', () => {
    const env = {
      OPENAI_API_KEY: 'sk-openai-123456',
      BAREAGENT_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      GITHUB_TOKEN: 'ghp_abcdefgh',
      db_password: 'correct horse',
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
      GOOGLE_APPLICATION_CREDENTIALS: '/etc/creds.json',
      SHORT_TOKEN: 'abc',
      PATH: '/usr/bin:/bin',
      HOME: '/home/someone',
      OTHER: 'sk-not-named-as-a-secret',
    };
    expect(secretsFromEnv(env).sort()).toEqual(
      ['sk-openai-123456', 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=', 'ghp_abcdefgh', 'correct horse', 'aws-secret-value', '/etc/creds.json'].sort(),
    );
  });
});
