import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Budgets, describeIssues, PermissionMode, PermissionRules } from '../common/input';
import { UsageError } from '../runs/usage-error';
import { outsideLinks, specialFiles } from './template-links';
import { visibleText } from '../common/visible-text';

/**
 * One eval task: `<suite>/<name>/task.json` beside `<suite>/<name>/workspace/`, the template each
 * trial gets a fresh copy of. The suite is the operator's own files, not the agent's.
 */
export const EvalTaskFile = z
  .strictObject({
    prompt: z.string().trim().min(1, { message: 'must be a non-empty string' }),
    /** Passes when this command exits 0 in the trial's workspace, run in the sandbox after the run ends. */
    check: z.string().min(1).optional(),
    /** Passes only when the run's final answer matches this regular expression (case-insensitive). */
    answer: z
      .string()
      .min(1)
      .refine((source) => isRegExp(source), { message: 'must be a valid regular expression' })
      .optional(),
    /**
     * The run's acceptance check (a final answer counts only once it passes, else the model sees
     * why): `true` gives it `check`; a string is a command of its own, e.g. the project's visible test.
     */
    acceptance: z.union([z.boolean(), z.string().min(1)]).default(false),
    checkTimeoutSeconds: z.number().positive().max(3600).default(60),
    maxIterations: z.number().int().positive().max(100_000).optional(),
    budgets: Budgets.optional(),
    permissionMode: PermissionMode.optional(),
    permissionRules: PermissionRules.optional(),
  })
  .refine((task) => task.check !== undefined || task.answer !== undefined, { message: 'needs a check command or an answer pattern' })
  .refine((task) => task.acceptance !== true || task.check !== undefined, { message: 'acceptance: true needs a check command' });
export type EvalTask = z.output<typeof EvalTaskFile> & { name: string; template: string };

function isRegExp(source: string): boolean {
  try {
    new RegExp(source, 'i');
    return true;
  } catch {
    return false;
  }
}

/** Every task directory of `dir` (sorted by name), or the one task `dir` is; `only` keeps the named ones, in its order. */
export function loadSuite(dir: string, only: string[] = []): EvalTask[] {
  const root = path.resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new UsageError(`eval: ${dir} is not a directory`);
  const dirs = existsSync(path.join(root, 'task.json'))
    ? [root]
    : readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(path.join(root, entry.name, 'task.json')))
        .map((entry) => path.join(root, entry.name))
        .sort();
  const all = dirs.map(loadTask);
  // Named tasks run in the order named: a short measurement covers the same ones first each time.
  const tasks = only.length === 0 ? all : only.flatMap((name) => all.filter((task) => task.name === name));
  if (tasks.length === 0) throw new UsageError(`eval: no task (a directory with task.json) in ${dir}${only.length ? ` named ${only.join(', ')}` : ''}`);
  return tasks;
}

function loadTask(dir: string): EvalTask {
  const file = path.join(dir, 'task.json');
  // Read only a regular file: a FIFO would block the eval for ever, a link would read (and quote in the parse error) a file elsewhere.
  if (!lstatSync(file).isFile()) throw new UsageError(`eval: ${visibleText(file)} is not a regular file (a link, FIFO or device)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`eval: ${file}: ${(err as Error).message}`);
  }
  const parsed = EvalTaskFile.safeParse(raw);
  if (!parsed.success) throw new UsageError(`eval: ${file}: ${describeIssues(parsed.error)}`);
  const template = path.join(dir, 'workspace');
  if (!existsSync(template) || !statSync(template).isDirectory()) throw new UsageError(`eval: ${dir} has no workspace/ directory`);
  if (!lstatSync(template).isDirectory()) throw new UsageError(`eval: ${visibleText(template)} is a link: each trial copies the template, which must be a directory of the suite`);
  const special = specialFiles(template);
  if (special.length > 0) throw new UsageError(`eval: ${visibleText(template)} holds FIFOs, sockets or devices, which a trial's copy cannot hold: ${special.join(', ')}`);
  const outside = outsideLinks(template);
  if (outside.length > 0) throw new UsageError(`eval: ${template} has symlinks that point outside it (a trial's agent would reach your files through them): ${outside.join(', ')}`);
  return { ...parsed.data, name: path.basename(dir), template };
}
