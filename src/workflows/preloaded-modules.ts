/**
 * The libraries the worker loads once into the SDK's shared workflow context (bundle option
 * `preloadModules`, see src/worker/create-worker.ts) instead of once per cached run.
 *
 * zod's package declares itself free of side effects, so a bare `preloadModules: ['zod']` would be
 * dropped by the bundler as an unused import; this module uses it. zod also fills its global
 * configuration (English messages, the memoizer) when the first schema is built; the SDK freezes
 * what a preloaded module left behind, so the first schema is built here, before that.
 */
import { z } from 'zod';

z.strictObject({ ready: z.boolean() }).safeParse({ ready: true });

export const preloaded = [z];
