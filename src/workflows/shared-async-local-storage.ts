/**
 * One `AsyncLocalStorage` for every run a workflow thread holds, in place of the several each run
 * makes for itself. With the SDK's reusable context every cached run instantiates the SDK's modules
 * anew, and each instance makes its own storages (its cancellation scopes, its update scope, the
 * tracing context, ...). On Node 20 every enabled storage is visited at the creation of every
 * promise in the thread, and a promise carrying that many private keys is slow to touch: measured
 * here, an `await` cost 0.2 µs with one storage, 27 µs with 150 (50 cached runs) and 79 µs with
 * 600. So a worker grew slower with every run in its cache.
 *
 * This class keeps the storage API the SDK and the tracing interceptors use (`run`, `getStore`,
 * `enterWith`, `exit`, `disable`), but each instance is only a key into a frame: a map from instance
 * to store, carried across awaits by one real storage. A frame is copied on `run`, so a nested
 * `run` never changes what an outer one sees, as with separate storages. The bundler points the
 * SDK's `globalThis.AsyncLocalStorage` here (src/worker/workflow-bundle.ts); the class is installed
 * once, by a module preloaded into the shared context (src/workflows/preloaded-modules.ts).
 */

type Frame = Map<object, unknown>;

interface NodeStorage<T> {
  run<R>(store: T, callback: (...args: unknown[]) => R, ...args: unknown[]): R;
  getStore(): T | undefined;
  enterWith(store: T): void;
}

/** The global the bundler routes the SDK's `globalThis.AsyncLocalStorage` to. */
export const SHARED_STORAGE_GLOBAL = '__BAREAGENT_SHARED_ASYNC_LOCAL_STORAGE__';

/** The part of Node's `AsyncLocalStorage` that workflow code uses. */
export interface SharedStorage<T> {
  readonly name: string;
  getStore(): T | undefined;
  run<R>(store: T, callback: (...args: unknown[]) => R, ...args: unknown[]): R;
  enterWith(store: T): void;
  exit<R>(callback: (...args: unknown[]) => R, ...args: unknown[]): R;
  disable(): void;
}

/** The class for the global, over one storage of the sandbox's own class (the SDK's, over Node's). */
export function sharedStorageClass(Storage: new () => NodeStorage<Frame>): new <T>(name?: string) => SharedStorage<T> {
  const frames = new Storage();
  // Enabled now, while the preloading context can still change it: the SDK freezes what preloading leaves.
  frames.run(new Map(), () => undefined);

  return class SharedAsyncLocalStorage<T> implements SharedStorage<T> {
    private disabled = false;

    constructor(readonly name = 'anonymous') {}

    getStore(): T | undefined {
      return this.disabled ? undefined : (frames.getStore()?.get(this) as T | undefined);
    }

    run<R>(store: T, callback: (...args: unknown[]) => R, ...args: unknown[]): R {
      this.disabled = false;
      return frames.run(new Map(frames.getStore()).set(this, store), callback, ...args);
    }

    enterWith(store: T): void {
      this.disabled = false;
      frames.enterWith(new Map(frames.getStore()).set(this, store));
    }

    exit<R>(callback: (...args: unknown[]) => R, ...args: unknown[]): R {
      const frame = new Map(frames.getStore());
      frame.delete(this);
      return frames.run(frame, callback, ...args);
    }

    disable(): void {
      this.disabled = true;
    }
  };
}

/** Installs the class as the global, once per context (from the preloaded module). */
export function installSharedStorage(): void {
  // Read by reflection: the bundler rewrites `globalThis.AsyncLocalStorage` (and its aliases) to the shared class.
  const Storage = Reflect.get(globalThis, 'AsyncLocalStorage') as (new () => NodeStorage<Frame>) | undefined;
  if (!Storage || Reflect.has(globalThis, SHARED_STORAGE_GLOBAL)) return;
  Object.defineProperty(globalThis, SHARED_STORAGE_GLOBAL, { value: sharedStorageClass(Storage), writable: false, enumerable: false, configurable: false });
}
