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
import { installSharedStorage } from './shared-async-local-storage';

const WORKFLOW_STACK_FRAMES = 3;

/**
 * The SDK's promise hook captures a stack trace for every promise a workflow makes (it serves only
 * the Web UI's stack-trace query); the capture's cost grows with the frames kept. Three frames keep
 * the top of each failure's stack and of the stack-trace view. Set here, inside the workflow
 * context, before the SDK freezes its globals; activities and the worker keep V8's default.
 */
Error.stackTraceLimit = WORKFLOW_STACK_FRAMES;

/**
 * No compiled parsers: zod compiles an object schema's parser (`new Function`) the first time it
 * parses, and each run builds its own schemas, so every run that enters the cache paid the
 * compiler for each schema it parsed once or twice (its input, a tool call's arguments).
 */
z.config({ jitless: true });

z.strictObject({ ready: z.boolean() }).safeParse({ ready: true });

// One storage for every run of the thread instead of several per run (src/workflows/shared-async-local-storage.ts).
installSharedStorage();

export const preloaded = [z];
