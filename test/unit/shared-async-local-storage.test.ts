import { AsyncLocalStorage } from 'node:async_hooks';
import { sharedStorageClass } from '../../src/workflows/shared-async-local-storage';

/** Node's storage, counting how many are made: the shared class must make one, however many runs it serves. */
function countingStorage() {
  const made = { count: 0 };
  class Counted<T> extends AsyncLocalStorage<T> {
    constructor() {
      super();
      made.count += 1;
    }
  }
  return { Storage: Counted as unknown as new () => AsyncLocalStorage<Map<object, unknown>>, made };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('200 runs of three storages each are carried by one storage of the thread', async () => {
  const { Storage, made } = countingStorage();
  const Shared = sharedStorageClass(Storage);
  const runs = Array.from({ length: 200 }, (_, run) => ({ run, storages: [new Shared<string>(), new Shared<string>(), new Shared<string>()] }));
  const seen = await Promise.all(
    runs.map(({ run, storages: [a, b, c] }) =>
      a!.run(`a${run}`, () =>
        b!.run(`b${run}`, async () => {
          await tick();
          return c!.run(`c${run}`, async () => {
            await tick();
            return [a!.getStore(), b!.getStore(), c!.getStore()].join(' ');
          });
        }),
      ),
    ),
  );
  expect(seen).toEqual(runs.map(({ run }) => `a${run} b${run} c${run}`));
  expect(made.count).toBe(1);
});

test('a nested run does not change what the outer one sees, and each storage keeps its own store', async () => {
  const Shared = sharedStorageClass(AsyncLocalStorage as unknown as new () => AsyncLocalStorage<Map<object, unknown>>);
  const scope = new Shared<string>('scope');
  const other = new Shared<string>('other');
  expect(scope.getStore()).toBeUndefined();
  await scope.run('outer', async () => {
    const inner = scope.run('inner', async () => {
      await tick();
      return [scope.getStore(), other.getStore()];
    });
    await tick();
    expect(scope.getStore()).toBe('outer');
    expect(await inner).toEqual(['inner', undefined]);
    expect(other.run('x', () => [scope.getStore(), other.getStore()])).toEqual(['outer', 'x']);
    expect(scope.exit(() => [scope.getStore(), other.getStore()])).toEqual([undefined, undefined]);
    expect(scope.getStore()).toBe('outer');
  });
  expect(scope.getStore()).toBeUndefined();
});

test('a disabled storage reads nothing until it runs again, as Node\'s does', () => {
  const Shared = sharedStorageClass(AsyncLocalStorage as unknown as new () => AsyncLocalStorage<Map<object, unknown>>);
  const storage = new Shared<number>();
  storage.run(1, () => {
    storage.disable();
    expect(storage.getStore()).toBeUndefined();
    storage.run(2, () => expect(storage.getStore()).toBe(2));
  });
});
