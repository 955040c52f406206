import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { initialRunState, parseRunState, RUN_STATE_VERSION } from '../../src/workflows/run-state';

const dir = path.join(__dirname, '../fixtures/run-state');
const fixtures = readdirSync(dir).filter((f) => f.endsWith('.json'));
const load = (file: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;

function rejection(raw: unknown): string {
  const parsed = parseRunState(raw);
  if (parsed.ok) throw new Error('expected the state to be rejected');
  return parsed.message;
}

test('there is a fixture for every version this build reads', () => {
  for (let version = 1; version <= RUN_STATE_VERSION; version++) expect(fixtures).toContain(`v${version}.json`);
});

test.each(fixtures)('carried state %s is still accepted, with nothing dropped', (file) => {
  const raw = load(file);
  const parsed = parseRunState(raw);
  if (!parsed.ok) throw new Error(parsed.message);
  expect(parsed.state.version).toBe(RUN_STATE_VERSION);
  expect(parsed.state).toEqual({ ...raw, version: RUN_STATE_VERSION });
});

test('state carried before it had a version is version 1', () => {
  const raw = load('v1-unversioned.json');
  expect(raw.version).toBeUndefined();
  const parsed = parseRunState(raw);
  expect(parsed.ok && parsed.state.version).toBe(1);
});

test('a fresh run writes the current version, and it parses back', () => {
  const state = initialRunState('hi', 1000);
  expect(state.version).toBe(RUN_STATE_VERSION);
  expect(parseRunState(JSON.parse(JSON.stringify(state)))).toEqual({ ok: true, state });
});

test('a bad field is named with its path under resume', () => {
  const raw = load('v1.json');
  expect(rejection({ ...raw, budget: { ...(raw.budget as object), iterations: 'three' } })).toBe(
    'Invalid carried state: resume.budget.iterations: Invalid input: expected number, received string',
  );
  expect(rejection({ ...raw, messages: [{ role: 'robot', content: 'x' }] })).toMatch(/^Invalid carried state: resume\.messages\.0\.role: /);
  const { lastText: _dropped, ...withoutLastText } = raw;
  expect(rejection(withoutLastText)).toMatch(/resume\.lastText: /);
  expect(rejection('not an object')).toMatch(/^Invalid carried state: resume: /);
});

test('a version this build does not know is refused, not guessed at', () => {
  expect(rejection({ ...load('v1.json'), version: RUN_STATE_VERSION + 1 })).toBe(
    `Invalid carried state: resume.version: this build reads carried state version ${RUN_STATE_VERSION}`,
  );
});

test('checkpoints carried across continue-as-new keep what they left out and a step 0 still to take', () => {
  const state = { ...initialRunState('hi', 1000), checkpoints: { deny: ['.env'], pending: true as const } };
  expect(parseRunState(JSON.parse(JSON.stringify(state)))).toEqual({ ok: true, state });
  const taken = { ...initialRunState('hi', 1000), checkpoints: { deny: [], start: 'a', last: 'b', store: '/s', workspace: '/w', leftOut: ['sub/ (its own git repository)'] } };
  expect(parseRunState(JSON.parse(JSON.stringify(taken)))).toEqual({ ok: true, state: taken });
});
