import { buildRunInput, UsageError } from '../../src/cli/run-input';

test('--network and --read-path become the run sandbox', () => {
  expect(buildRunInput('x', { workspace: '/tmp', network: 'registry.npmjs.org, *.github.com', readPath: ['/var/cache'] })).toMatchObject({
    sandbox: { network: { allowHosts: ['registry.npmjs.org', '*.github.com'] }, readOnlyPaths: ['/var/cache'] },
  });
  expect(buildRunInput('x', { workspace: '/tmp', network: 'full' })).toMatchObject({ sandbox: { network: 'full' } });
  expect(buildRunInput('x', { workspace: '/tmp' })).not.toHaveProperty('sandbox');
});

test('a host that is not a host name is a usage error naming the field', () => {
  expect(() => buildRunInput('x', { workspace: '/tmp', network: 'https://evil/' })).toThrow(UsageError);
  expect(() => buildRunInput('x', { workspace: '/tmp', network: 'https://evil/' })).toThrow(/sandbox\.network\.allowHosts\.0/);
});

test('--no-project-instructions turns the AGENTS.md reading off', () => {
  expect(buildRunInput('x', { workspace: '/tmp', projectInstructions: false })).toMatchObject({ projectInstructions: false });
  expect(buildRunInput('x', { workspace: '/tmp', projectInstructions: true })).not.toHaveProperty('projectInstructions');
});

test('--max-tokens, --max-cost and --max-wall-clock become the budgets; a bad one names its field', () => {
  expect(buildRunInput('x', { workspace: '/tmp', maxTokens: '5000', maxCost: '0.5', maxWallClock: '10m' })).toMatchObject({
    budgets: { maxTokens: 5000, maxCostUsd: 0.5, maxWallClock: '10m' },
  });
  expect(buildRunInput('x', { workspace: '/tmp' })).not.toHaveProperty('budgets');
  expect(() => buildRunInput('x', { workspace: '/tmp', maxTokens: 'lots' })).toThrow(/budgets\.maxTokens/);
});

test('--notify becomes the run webhook; a URL that is not http(s) is a usage error naming the field', () => {
  expect(buildRunInput('x', { workspace: '/tmp', notify: 'https://hooks.example/abc' })).toMatchObject({ notify: { webhook: 'https://hooks.example/abc' } });
  expect(() => buildRunInput('x', { workspace: '/tmp', notify: 'ftp://hooks.example/abc' })).toThrow(/notify\.webhook: must be an http\(s\) URL/);
  expect(() => buildRunInput('x', { workspace: '/tmp', notify: 'not a url' })).toThrow(UsageError);
});
