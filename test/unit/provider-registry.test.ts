import { PROVIDER_NAMES, PROVIDERS, type ProviderName } from '../../src/common/providers';
import { adapterOf, Providers } from '../../src/activities/model/providers';
import { AgentRunInput } from '../../src/common/input';

/**
 * A provider's one registration is its entry in PROVIDERS (its name and how the doctor lists its
 * models): its folder, found by that name, gives the adapter the worker makes; the run input accepts the name.
 */
test.each(PROVIDER_NAMES)('the %s folder exports its adapter, found by its name alone', (name) => {
  const adapter = adapterOf(name);
  expect(adapter.name).toBe(name);
  expect(PROVIDERS[name].modelListing.path).toMatch(/^\//);
  const made = new Providers({ requestTimeoutMs: 1_000, endpoints: { [name]: { baseURL: 'http://127.0.0.1:9' } } }).get(name);
  expect(made.name).toBe(name);
  expect(AgentRunInput.safeParse({ prompt: 'p', provider: name }).success).toBe(true);
});

test('a name outside PROVIDER_NAMES is refused with the list, in the input and the registry', () => {
  expect(() => adapterOf('../anthropic' as ProviderName)).toThrow('No provider "../anthropic": the providers are openai, anthropic');
  expect(AgentRunInput.safeParse({ prompt: 'p', provider: 'gemini' }).success).toBe(false);
});
